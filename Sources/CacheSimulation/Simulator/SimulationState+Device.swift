import ImagePipeline
@_spi(Simulation) import CacheEngine

/// The phone a run's app is on: its footprint account, and the launch running.
struct DeviceSession {
    /// The app's footprint on the configuration's device; in observed order the live replay's
    /// own accounting decides, and its warnings and ends come as steps of their own.
    var footprint: DeviceFootprint?
    /// The session (launch) running: when its first and last requests came.
    var session: (first: UInt64, last: UInt64)?
    /// Whether the app was ended in this session.
    var interrupted = false

    static func count(_ session: (first: UInt64, last: UInt64), in result: inout SimulationResult) {
        result.device?.sessions += 1
        result.device?.usageSeconds += Double(session.last &- session.first) / 1e9
    }
}

extension SimulationState {
    /// The system warns the app: the configuration's reaction (and an NSCache's own purge).
    mutating func deviceWarns(_ level: MemoryPressureLevel, now: UInt64) {
        accounting.result.device?.warnings += 1
        warn(level, now: now)
    }

    /// The system ends the app as `landing`'s image is decoded: it and every request in flight
    /// are never shown, downloads in flight store nothing, and the next request starts the app again.
    mutating func endProcess(losing landing: Landing) {
        accounting.lost(landing.index, joiners: landing.joiners)
        for other in inFlight.window.removeAll() { accounting.lost(other.index, joiners: other.joiners) }
        for other in clock?.abandon() ?? [] { accounting.lost(other.index, joiners: other.joiners) }
        inFlight.downloads.removeAll()
        endedProcess()
    }

    /// Counts the app's end and starts it again (a live replay's end, in observed order, comes here directly).
    mutating func endedProcess() {
        accounting.result.device?.processEnds += 1
        if !device.interrupted {
            accounting.result.device?.interruptedSessions += 1
            device.interrupted = true
        }
        restartProcess()
    }

    /// A live replay logged the device warning or ending the app at `index`.
    mutating func observedDevice(_ step: ObservedOrder.DeviceStep, _ index: Int) {
        switch step {
        case .warning: deviceWarns(.warning, now: trace.times[index])
        case .critical: deviceWarns(.critical, now: trace.times[index])
        case .end:
            accounting.lost(index)
            endedProcess()
        }
    }

    @inline(__always)
    mutating func noteSessionRequest(at now: UInt64) {
        guard accounting.result.device != nil else { return }
        if device.session == nil { device.session = (now, now) } else { device.session!.last = max(device.session!.last, now) }
    }

    /// A launch the trace records is over.
    mutating func endSession() {
        guard let session = device.session else { return }
        DeviceSession.count(session, in: &accounting.result)
        device.session = nil
        device.interrupted = false
    }
}
