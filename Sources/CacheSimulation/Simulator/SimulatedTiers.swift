import ImagePipeline
@_spi(Simulation) import CacheEngine

/// The simulator's memory and disk tiers, the picture each of their keys holds, and their peaks.
struct SimulatedTiers<Policy: EvictionPolicy> {
    /// The live pipeline's decisions: which disk entries to try, what to store where.
    let plan: TierPlan
    var memory: StripedMemory<Policy>
    var disk: DiskIndexModel?
    /// The picture (content id) and source URL each memory and disk key holds (recorded traces).
    var memoryHolds: [(content: Int32, url: Int32)]
    var diskHolds: [(content: Int32, url: Int32)]
    var peakMemoryCost = 0, peakDiskBytes = 0
    /// Entries the disk tier's trims removed.
    var diskEvictions = 0
    /// Whether a store that takes the disk over its limit trims at once; in observed order
    /// the live disk tier's trims, which run a moment later, come as steps of their own.
    var trimsDiskAtOnce = true

    init(trace: SimulationTrace, configuration: SimulationConfiguration, policy: Policy) {
        plan = TierPlan(diskPolicy: configuration.disk.map { trace.hasDetails ? $0.policy : .originals })
        let trimsIdle = [configuration.pressure.warning, configuration.pressure.critical].contains {
            if case .trimIdle = $0 { true } else { false }
        }
        memory = StripedMemory(
            first: policy, kind: configuration.policy, limits: configuration.limits, stripes: configuration.stripes,
            fingerprints: trace.fingerprints, cheapestCost: trace.costs.min() ?? 1, timeToLive: configuration.timeToLive.map { UInt64(max($0.nanoseconds, 0)) },
            tracksLastUse: trimsIdle)
        disk = configuration.disk.map {
            DiskIndexModel(byteLimit: $0.byteLimit, countLimit: $0.countLimit, lowWaterFraction: $0.lowWaterFraction)
        }
        memoryHolds = trace.hasDetails ? Array(repeating: (-1, -1), count: trace.keyCount) : []
        diskHolds = trace.hasDetails ? Array(repeating: (-1, -1), count: trace.diskKeyCount) : []
    }

    /// Whether the disk tier holds `key`, and counts the read when it does.
    @inline(__always)
    mutating func readDisk(_ key: TraceKey) -> Bool {
        guard key >= 0, disk?.contains(key) == true else { return false }
        disk!.recordAccess(key)
        return true
    }

    /// Stores in memory, keeping the peak; whether the entry was taken.
    @inline(__always)
    mutating func insertInMemory(_ key: TraceKey, cost: Int, missCost: Int, now: UInt64) -> Bool {
        let stored = memory.insert(key, cost: cost, missCost: missCost, now: now)
        peakMemoryCost = max(peakMemoryCost, memory.totalCost)
        return stored
    }

    /// Stores `bytes` on disk, keeping the peak and trimming when the tier trims at once.
    @inline(__always)
    mutating func storeOnDisk(_ key: TraceKey, bytes: Int) {
        disk!.insert(key, bytes: bytes)
        peakDiskBytes = max(peakDiskBytes, disk!.totalBytes)
        if trimsDiskAtOnce, disk!.needsTrim { trimDisk() }
    }

    /// Evicts the disk tier down to its low-water mark.
    mutating func trimDisk() {
        disk!.trim { _ in diskEvictions += 1 }
    }
}
