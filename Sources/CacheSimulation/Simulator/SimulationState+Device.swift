import ImagePipeline
@_spi(Simulation) import CacheEngine

// MARK: The device

extension SimulationState {
    /// The system warns the app: the configuration's reaction (and an NSCache's own purge).
    mutating func deviceWarns(_ level: MemoryPressureLevel, now: UInt64) {
        result.device?.warnings += 1
        warn(level, now: now)
    }

    /// The system ends the app as `landing`'s image is decoded: it and every request in flight
    /// are never shown, downloads in flight store nothing, and the next request starts the app again.
    mutating func endProcess(losing landing: Landing) {
        lose(landing)
        for other in window.removeAll() { lose(other) }
        downloads.removeAll()
        endedProcess()
    }

    /// Counts the app's end and starts it again (a live replay's end, in observed order, comes here directly).
    mutating func endedProcess() {
        result.device?.processEnds += 1
        if !sessionInterrupted {
            result.device?.interruptedSessions += 1
            sessionInterrupted = true
        }
        restartProcess()
    }

    /// A request that never reached the screen, with those that joined it. The tiers' counters
    /// keep what the tiers did for it (a disk read, a download, a join).
    mutating func lose(_ landing: Landing) {
        result.device?.lostRequests += 1 + landing.joiners
        if !answers.isEmpty { answers[landing.index] = .lost }
    }

    /// A live replay logged the device warning or ending the app at `index`.
    mutating func observedDevice(_ step: ObservedOrder.DeviceStep, _ index: Int) {
        switch step {
        case .warning: deviceWarns(.warning, now: trace.times[index])
        case .critical: deviceWarns(.critical, now: trace.times[index])
        case .end:
            result.device?.lostRequests += 1
            answers[index] = .lost
            endedProcess()
        }
    }

    @inline(__always)
    mutating func noteSessionRequest(at now: UInt64) {
        guard result.device != nil else { return }
        if session == nil { session = (now, now) } else { session!.last = max(session!.last, now) }
    }

    static func count(_ session: (first: UInt64, last: UInt64), in result: inout SimulationResult) {
        result.device?.sessions += 1
        result.device?.usageSeconds += Double(session.last &- session.first) / 1e9
    }

    /// A launch the trace records is over.
    mutating func endSession() {
        guard let session else { return }
        Self.count(session, in: &result)
        self.session = nil
        sessionInterrupted = false
    }
}
