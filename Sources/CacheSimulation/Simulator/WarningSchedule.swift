/// The memory warnings a configuration makes besides the trace's (`WarningSource`): one every
/// so many seconds of trace time (at most one per request gap), or one whenever an insert
/// leaves the memory tier holding more than a cost.
struct WarningSchedule {
    /// A warning whenever the memory tier holds more than this after an insert (`.max`: never).
    let costThreshold: Int
    private let interval: UInt64
    private var next: UInt64

    init(_ source: SimulationConfiguration.WarningSource, start: UInt64) {
        switch source {
        case .every(let seconds):
            interval = UInt64(max(seconds, 0.001) * 1e9)
            costThreshold = .max
        case .costAbove(let cost):
            interval = 0
            costThreshold = cost
        case .trace, .none:
            interval = 0
            costThreshold = .max
        }
        next = interval == 0 ? .max : start &+ interval
    }

    /// Whether a scheduled warning comes at `now`; the schedule then moves past `now`.
    @inline(__always)
    mutating func isDue(at now: UInt64) -> Bool {
        guard now >= next else { return false }
        while next <= now { next &+= interval }
        return true
    }
}
