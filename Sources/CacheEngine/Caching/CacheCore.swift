/// The bookkeeping the live `MemoryCache` and the simulator share around a
/// policy: the per-entry size limit, last-use times and expiry per slot,
/// counters, trims and memory-pressure reactions. Both run this same code, so
/// a simulated run makes the live cache's decisions.
///
/// Time is a caller-supplied `UInt64` in nanoseconds: the monotonic clock in the
/// live cache, trace time in the simulator.
public struct CacheCore<Policy: EvictionPolicy> {
    public private(set) var policy: Policy
    public private(set) var statistics = CacheStatistics()
    /// Entries older than this (nanoseconds since insertion) are expired; nil for never.
    public let timeToLive: UInt64?
    /// Whether last-use times are kept (for idle trims). A simulation whose
    /// reactions never trim idle entries skips them: one less random write per request.
    public let tracksLastUse: Bool
    private var lastUse: [UInt64] = []
    private var expiry: [UInt64] = []
    /// One past the highest slot ever stored: where `removeAll` looks.
    private var slotRange = 0

    public init(policy: Policy, timeToLive: UInt64? = nil, tracksLastUse: Bool = true) {
        self.policy = policy
        self.timeToLive = timeToLive
        self.tracksLastUse = tracksLastUse
    }

    public var limits: CacheLimits { policy.limits }
    public var totalCost: Int { policy.totalCost }
    public var count: Int { policy.count }

    /// Looks `slot` up; a hit refreshes it. An expired entry is removed, reported
    /// to `removed`, and counts as a miss.
    @inline(__always)
    public mutating func lookup(_ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        guard policy.contains(slot) else {
            statistics.misses += 1
            return false
        }
        if timeToLive != nil, expiry[Int(slot)] <= now {
            policy.remove(slot)
            statistics.expirations += 1
            statistics.misses += 1
            removed(slot, .expired)
            return false
        }
        policy.recordHit(slot)
        if tracksLastUse { lastUse[Int(slot)] = now }
        statistics.hits += 1
        return true
    }

    /// Counts a lookup of a key the owner knows is absent.
    @inline(__always)
    public mutating func recordMiss() { statistics.misses += 1 }

    /// Stores a new entry in `entry.slot` (which must not be resident). Returns
    /// false when it is too large or the policy declines it; `removed` hears every
    /// other entry evicted to make room.
    @inline(__always)
    public mutating func insert(_ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        guard policy.limits.admits(cost: entry.cost) else {
            statistics.rejections += 1
            return false
        }
        reserve(entry.slot)
        var evictions = 0
        let admitted = policy.insert(entry) { victim in
            guard victim != entry.slot else { return }
            evictions += 1
            removed(victim, .capacity)
        }
        statistics.evictions += evictions
        guard admitted else {
            statistics.rejections += 1
            return false
        }
        statistics.insertions += 1
        if Int(entry.slot) >= slotRange { slotRange = Int(entry.slot) + 1 }
        if tracksLastUse { lastUse[Int(entry.slot)] = now }
        if let timeToLive { expiry[Int(entry.slot)] = now &+ timeToLive }
        return true
    }

    /// Removes a resident entry at its owner's request (not an eviction).
    public mutating func remove(_ slot: Slot) {
        guard policy.contains(slot) else { return }
        policy.remove(slot)
        statistics.removals += 1
    }

    /// Evicts in policy order until the total cost is at most `target`.
    public mutating func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void) {
        while policy.totalCost > max(target, 0), let victim = policy.evictNext() {
            statistics.trimmed += 1
            removed(victim, .trimmed)
        }
    }

    /// Drops every entry whose last use is before `cutoff`.
    public mutating func trimIdle(usedBefore cutoff: UInt64, removed: (Slot, EvictionReason) -> Void) {
        precondition(tracksLastUse || cutoff == .max, "idle trims need last-use times")
        for index in 0..<slotRange where policy.contains(Slot(index)) && (cutoff == .max || lastUse[index] < cutoff) {
            policy.remove(Slot(index))
            statistics.trimmed += 1
            removed(Slot(index), .trimmed)
        }
    }

    /// Drops every entry; the policy keeps its history (ghosts, frequencies).
    public mutating func removeAll(removed: (Slot, EvictionReason) -> Void) {
        trimIdle(usedBefore: .max, removed: removed)
    }

    /// Starts over as a new process would: no entries and no policy history.
    /// Nothing is counted as evicted or trimmed.
    public mutating func restart() {
        policy.removeAll()
    }

    /// Applies a memory-pressure reaction.
    public mutating func respond(
        to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void
    ) {
        switch reaction {
        case .ignore: break
        case .purgeAll: removeAll(removed: removed)
        case .trimToFraction(let fraction):
            trim(toCost: Int(Double(policy.limits.costLimit) * fraction), removed: removed)
        case .trimIdle(let seconds):
            let age = UInt64(max(seconds, 0) * 1e9)
            trimIdle(usedBefore: now > age ? now - age : 0, removed: removed)
        }
    }

    private mutating func reserve(_ slot: Slot) {
        guard tracksLastUse || timeToLive != nil else { return }
        let needed = Int(slot) + 1
        guard needed > lastUse.count else { return }
        let extra = max(needed, lastUse.count * 2, 16) - lastUse.count
        lastUse.append(contentsOf: repeatElement(0, count: extra))
        if timeToLive != nil { expiry.append(contentsOf: repeatElement(0, count: extra)) }
    }
}
