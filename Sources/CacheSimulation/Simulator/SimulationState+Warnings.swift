import ImagePipeline
@_spi(Simulation) import CacheEngine

/// A run's memory warnings besides the trace's, what each cost, and the recovery from the last.
struct WarningAccount {
    var scheduled: WarningSchedule
    /// Keys a warning dropped that have not been asked for since (empty without warnings).
    var dropped: [Bool]
    /// The warning being recovered from: when it came and the cost held before it.
    var recovering: (time: UInt64, target: Int)?
    /// Whether any warning can come (the source is not `none`): only then are dropped keys kept.
    private let tracksDropped: Bool

    init(_ source: SimulationConfiguration.WarningSource, start: UInt64, keys: Int) {
        scheduled = WarningSchedule(source, start: start)
        tracksDropped = source != .none
        dropped = tracksDropped ? Array(repeating: false, count: keys) : []
    }

    /// A new process: misses from here on are not the warnings' doing.
    mutating func restarted() {
        recovering = nil
        for index in dropped.indices { dropped[index] = false }
    }

    /// Keys a streamed trace's chunk names for the first time.
    mutating func admit(_ count: Int) {
        if tracksDropped { dropped.append(contentsOf: repeatElement(false, count: count)) }
    }
}

extension SimulationState {
    mutating func warn(_ level: MemoryPressureLevel, now: UInt64) {
        let before = tiers.memory.totalCost
        accounting.result.warnings.count += 1
        let reaction = configuration.policy.reaction(to: level, under: configuration.pressure, onDevice: configuration.device != nil)
        tiers.memory.respond(to: reaction, now: now) { slot in
            if !warnings.dropped.isEmpty { warnings.dropped[Int(slot)] = true }
        }
        if tiers.memory.totalCost < before, warnings.recovering == nil {
            warnings.recovering = (now, before - before / 10)
        }
    }

    mutating func recovered(at now: UInt64) {
        guard let recovering = warnings.recovering else { return }
        // A request in flight can land with its own earlier time after a warning: no time has passed then.
        let seconds = Double(now > recovering.time ? now - recovering.time : 0) / 1e9
        accounting.result.warnings.recovered += 1
        accounting.result.warnings.recoverySeconds += seconds
        accounting.result.warnings.longestRecoverySeconds = max(accounting.result.warnings.longestRecoverySeconds, seconds)
        warnings.recovering = nil
    }

    /// Counts a miss on a key a warning dropped: the price of that warning.
    @inline(__always)
    mutating func noteRefetch(_ key: TraceKey, size: Int, fromOrigin: Bool) {
        guard !warnings.dropped.isEmpty, warnings.dropped[Int(key)] else { return }
        warnings.dropped[Int(key)] = false
        guard fromOrigin else {
            accounting.result.warnings.diskRereads += 1
            return
        }
        accounting.result.warnings.refetches += 1
        accounting.result.warnings.refetchedBytes += size
    }
}
