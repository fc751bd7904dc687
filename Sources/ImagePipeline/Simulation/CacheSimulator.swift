/// What a simulation is asked to run.
public struct SimulationConfiguration: Sendable, Hashable {
    public var limits: CacheLimits
    public var policy: EvictionPolicyKind
    public var timeToLive: Duration?
    public var pressure: MemoryPressurePolicy

    public init(
        limits: CacheLimits, policy: EvictionPolicyKind, timeToLive: Duration? = nil,
        pressure: MemoryPressurePolicy = .purgeAll
    ) {
        self.limits = limits
        self.policy = policy
        self.timeToLive = timeToLive
        self.pressure = pressure
    }
}

/// What a simulated (or bounded) run did.
public struct SimulationResult: Sendable, Codable, Equatable {
    public var policy: String
    public var requests = 0
    public var hits = 0.0
    /// Downloaded bytes the hits saved.
    public var byteHits = 0.0
    public var bytesRequested = 0
    /// Bytes the misses download.
    public var bytesDownloaded: Int { bytesRequested - Int(byteHits.rounded()) }
    public var statistics = CacheStatistics()

    public init(policy: String) { self.policy = policy }

    public var hitRatio: Double { requests == 0 ? 0 : hits / Double(requests) }
    public var missRatio: Double { 1 - hitRatio }
    public var byteHitRatio: Double { bytesRequested == 0 ? 0 : byteHits / Double(bytesRequested) }
}

/// Runs a trace through a policy with the same `CacheCore` the live cache uses.
public enum CacheSimulator {
    public static func run(_ trace: SimulationTrace, _ configuration: SimulationConfiguration) -> SimulationResult {
        configuration.policy.withPolicy(limits: configuration.limits, Run(trace: trace, configuration: configuration))
    }

    /// The loop, specialised per policy type by the visitor.
    private struct Run: EvictionPolicyVisitor {
        let trace: SimulationTrace
        let configuration: SimulationConfiguration

        func visit<Policy: EvictionPolicy>(_ policy: Policy) -> SimulationResult {
            let timeToLive = configuration.timeToLive.map { UInt64(max($0.nanoseconds, 0)) }
            var core = CacheCore(policy: policy, timeToLive: timeToLive)
            var result = SimulationResult(policy: configuration.policy.description)
            var hits = 0, byteHits = 0, bytesRequested = 0
            var events = trace.pressureEvents.makeIterator()
            var nextEvent = events.next()
            trace.keys.withUnsafeBufferPointer { keys in
                trace.costs.withUnsafeBufferPointer { costs in
                    trace.sizes.withUnsafeBufferPointer { sizes in
                        trace.times.withUnsafeBufferPointer { times in
                            for index in 0..<keys.count {
                                let now = times[index]
                                while let event = nextEvent, event.beforeRequest <= index {
                                    core.respond(to: configuration.pressure.reaction(to: event.level), now: now) { _, _ in }
                                    nextEvent = events.next()
                                }
                                let key = keys[index], size = sizes[index]
                                bytesRequested &+= size
                                if core.lookup(key, now: now, removed: { _, _ in }) {
                                    hits &+= 1
                                    byteHits &+= size
                                } else {
                                    let entry = NewEntry(
                                        slot: key, cost: costs[index], fingerprint: trace.fingerprints[Int(key)],
                                        missCost: size)
                                    _ = core.insert(entry, now: now) { _, _ in }
                                }
                            }
                        }
                    }
                }
            }
            result.requests = trace.count
            result.hits = Double(hits)
            result.byteHits = Double(byteHits)
            result.bytesRequested = bytesRequested
            result.statistics = core.statistics
            return result
        }
    }
}
