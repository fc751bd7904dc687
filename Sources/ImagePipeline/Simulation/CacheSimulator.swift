/// What a simulation is asked to run.
public struct SimulationConfiguration: Sendable, Hashable {
    public var limits: CacheLimits
    public var policy: EvictionPolicyKind
    public var timeToLive: Duration?
    public var pressure: MemoryPressurePolicy
    /// A disk tier behind the memory tier (entries sized by the bytes a miss
    /// downloads), or nil for memory only.
    public var disk: DiskTier?

    public struct DiskTier: Sendable, Hashable {
        public var byteLimit: Int
        public var countLimit: Int
        public var lowWaterFraction: Double

        public init(byteLimit: Int, countLimit: Int = .max, lowWaterFraction: Double = 0.7) {
            self.byteLimit = byteLimit
            self.countLimit = countLimit
            self.lowWaterFraction = lowWaterFraction
        }
    }

    public init(
        limits: CacheLimits, policy: EvictionPolicyKind, timeToLive: Duration? = nil,
        pressure: MemoryPressurePolicy = .purgeAll, disk: DiskTier? = nil
    ) {
        self.limits = limits
        self.policy = policy
        self.timeToLive = timeToLive
        self.pressure = pressure
        self.disk = disk
    }
}

/// What a simulated (or bounded) run did.
public struct SimulationResult: Sendable, Codable, Equatable {
    public var policy: String
    public var requests = 0
    /// Memory-tier hits.
    public var hits = 0.0
    /// Downloaded bytes the memory hits saved.
    public var byteHits = 0.0
    /// Disk-tier hits (memory misses found on disk).
    public var diskHits = 0
    /// Downloaded bytes the disk hits saved.
    public var diskByteHits = 0
    /// Entries the disk tier evicted.
    public var diskEvictions = 0
    public var bytesRequested = 0
    public var statistics = CacheStatistics()

    public init(policy: String) { self.policy = policy }

    /// Requests neither tier answered: each one downloads from the origin.
    public var originFetches: Double { Double(requests) - hits - Double(diskHits) }
    /// Bytes the origin fetches download.
    public var bytesDownloaded: Int { bytesRequested - Int(byteHits.rounded()) - diskByteHits }
    /// Memory hit ratio.
    public var hitRatio: Double { requests == 0 ? 0 : hits / Double(requests) }
    public var missRatio: Double { 1 - hitRatio }
    public var byteHitRatio: Double { bytesRequested == 0 ? 0 : byteHits / Double(bytesRequested) }
    /// Share of requests either tier answered.
    public var combinedHitRatio: Double { requests == 0 ? 0 : (hits + Double(diskHits)) / Double(requests) }
}

/// Runs a trace through a policy with the same `CacheCore` the live cache uses.
public enum CacheSimulator {
    public static func run(_ trace: SimulationTrace, _ configuration: SimulationConfiguration) -> SimulationResult {
        configuration.policy.withPolicy(limits: configuration.limits, Run(trace: trace, configuration: configuration))
    }

    /// A memory miss: a disk hit refreshes the entry; a disk miss is an origin
    /// fetch whose bytes are written to disk, trimming to the low-water mark.
    @inline(__always)
    static func lookUpDisk(_ disk: inout DiskIndexModel, key: Slot, size: Int, into result: inout SimulationResult) {
        if disk.contains(key) {
            disk.recordAccess(key)
            result.diskHits += 1
            result.diskByteHits += size
            return
        }
        disk.insert(key, bytes: size)
        if disk.needsTrim { disk.trim { _ in result.diskEvictions += 1 } }
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
            var disk = configuration.disk.map {
                DiskIndexModel(byteLimit: $0.byteLimit, countLimit: $0.countLimit, lowWaterFraction: $0.lowWaterFraction)
            }
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
                                    if disk != nil { lookUpDisk(&disk!, key: key, size: size, into: &result) }
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
