/// The bookkeeping the live `MemoryCache` and the simulator share around a
/// policy: the per-entry size limit, last-use times and expiry per slot,
/// counters, trims and memory-pressure reactions. Both run this same code, so
/// a simulated run makes the live cache's decisions.
///
/// Time is a caller-supplied `UInt64` in nanoseconds: the monotonic clock in the
/// live cache, trace time in the simulator.
///
/// Public only to `@_spi(Simulation)` importers (the simulator), not to adopters: Swift
/// serialises the bodies of public inlinable code only, and a simulated request must run
/// this code specialised for its policy (as `package`, every simulated request called the
/// generic code: a witness call for each policy operation).
@_spi(Simulation) public struct CacheCore<Policy: EvictionPolicy> {
    @usableFromInline var storedPolicy: Policy
    @usableFromInline var counters = CacheStatistics()
    @inlinable public var policy: Policy { storedPolicy }
    @inlinable public var statistics: CacheStatistics { counters }
    /// Entries older than this (nanoseconds since insertion) are expired; nil for never.
    public let timeToLive: UInt64?
    /// Whether last-use times are kept (for idle trims). A simulation whose
    /// reactions never trim idle entries skips them: one less random write per request.
    public let tracksLastUse: Bool
    // Internal but inlinable-visible: the simulator (another module) specialises
    // this struct per policy (BENCHMARKS.md, "Measurements behind the code's shape").
    @usableFromInline var lastUse: [UInt64] = []
    @usableFromInline var expiry: [UInt64] = []
    /// One past the highest slot ever stored: where `removeAll` looks.
    @usableFromInline var slotRange = 0

    @inlinable
    public init(policy: Policy, timeToLive: UInt64? = nil, tracksLastUse: Bool = true) {
        self.storedPolicy = policy
        self.timeToLive = timeToLive
        self.tracksLastUse = tracksLastUse
    }

    @inlinable public var limits: CacheLimits { storedPolicy.limits }
    @inlinable public var totalCost: Int { storedPolicy.totalCost }
    @inlinable public var count: Int { storedPolicy.count }

    /// A hint that `slot` is about to be looked up (`EvictionPolicy.prefetch`). Mutating so the
    /// policy is passed where it lies: borrowed, a policy whose `prefetch` is not inlinable
    /// (ARC, 2Q, S3-FIFO, both W-TinyLFUs) was copied whole on every request.
    @inlinable @inline(__always)
    public mutating func prefetch(_ slot: Slot) { storedPolicy.prefetch(slot) }

    /// A hint that a key holding no slot is about to be looked up (`EvictionPolicy.prefetch(absent:)`).
    @inlinable @inline(__always)
    public mutating func prefetch(absent fingerprint: UInt64) { storedPolicy.prefetch(absent: fingerprint) }

    /// A nearer hint for a slot about to be looked up (`EvictionPolicy.prefetchNeighbours`).
    @inlinable @inline(__always)
    public mutating func prefetchNeighbours(_ slot: Slot) { storedPolicy.prefetchNeighbours(slot) }

    /// The slots the policy will evict next (`EvictionPolicy.upcomingVictims`).
    @inlinable @inline(__always)
    public func upcomingVictims() -> (soonest: Slot, next: Slot) { storedPolicy.upcomingVictims() }

    /// Looks `slot` up; a hit refreshes it. An expired entry is removed, reported
    /// to `removed`, and counts as a miss.
    @inlinable @inline(__always)
    public mutating func lookup(_ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        guard storedPolicy.contains(slot) else {
            counters.misses += 1
            return false
        }
        if timeToLive != nil, expiry[Int(slot)] <= now {
            storedPolicy.remove(slot)
            counters.expirations += 1
            counters.misses += 1
            removed(slot, .expired)
            return false
        }
        var evictions = 0
        storedPolicy.recordHit(slot) { victim in
            evictions += 1
            removed(victim, .capacity)
        }
        counters.evictions += evictions
        // The coarse clock repeats for milliseconds: a hot entry's time is often already now.
        if tracksLastUse, lastUse[Int(slot)] != now { lastUse[Int(slot)] = now }
        counters.hits += 1
        return true
    }

    /// Whether `slot` holds a resident entry.
    @inlinable @inline(__always)
    public func contains(_ slot: Slot) -> Bool { storedPolicy.contains(slot) }

    /// Counts hits the policy does not hear (a hit on an entry leaving as it was found).
    @inlinable @inline(__always)
    public mutating func countHits(_ count: Int) { counters.hits += count }

    /// Counts a lookup of a key the owner knows is absent.
    @inlinable @inline(__always)
    public mutating func recordMiss() { counters.misses += 1 }

    /// Stores an entry in `entry.slot`. A slot already resident is replaced: its
    /// entry leaves (counted in `removals`, not reported) and the new one enters
    /// as any other, with its own cost and a new entry's place: what
    /// `MemoryCache.insert` does for a key it holds, and what the simulator does when
    /// a second flight for one key lands. Policies never see a resident slot inserted.
    /// Returns false when it is too large or the policy declines it (the slot is then
    /// empty); `removed` hears every other entry evicted to make room.
    @inlinable @inline(__always)
    public mutating func insert(_ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        if storedPolicy.contains(entry.slot) {
            storedPolicy.remove(entry.slot)
            counters.removals += 1
        }
        guard storedPolicy.limits.admits(cost: entry.cost) else {
            counters.rejections += 1
            return false
        }
        reserve(entry.slot)
        var evictions = 0
        let admitted = storedPolicy.insert(entry) { victim in
            guard victim != entry.slot else { return }
            evictions += 1
            removed(victim, .capacity)
        }
        counters.evictions += evictions
        guard admitted else {
            counters.rejections += 1
            return false
        }
        counters.insertions += 1
        if Int(entry.slot) >= slotRange { slotRange = Int(entry.slot) + 1 }
        if tracksLastUse { lastUse[Int(entry.slot)] = now }
        if let timeToLive { expiry[Int(entry.slot)] = now &+ timeToLive }
        return true
    }

    /// Removes a resident entry at its owner's request (not an eviction).
    @inlinable
    public mutating func remove(_ slot: Slot) {
        guard storedPolicy.contains(slot) else { return }
        storedPolicy.remove(slot)
        counters.removals += 1
    }

    /// Evicts in policy order until the total cost is at most `target`; a target
    /// of 0 empties the cache, entries that cost nothing included (a policy that
    /// evicts newest first would otherwise keep the oldest free ones).
    @inlinable
    public mutating func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void) {
        while storedPolicy.totalCost > max(target, 0) || (target <= 0 && storedPolicy.count > 0),
              let victim = storedPolicy.evictNext() {
            counters.trimmed += 1
            removed(victim, .trimmed)
        }
    }

    /// Drops every entry whose last use is before `cutoff`.
    @inlinable
    public mutating func trimIdle(usedBefore cutoff: UInt64, removed: (Slot, EvictionReason) -> Void) {
        precondition(tracksLastUse || cutoff == .max, "idle trims need last-use times")
        for index in 0..<slotRange where storedPolicy.contains(Slot(index)) && (cutoff == .max || lastUse[index] < cutoff) {
            storedPolicy.remove(Slot(index))
            counters.trimmed += 1
            removed(Slot(index), .trimmed)
        }
    }

    /// Drops every entry; the policy keeps its history (ghosts, frequencies).
    @inlinable
    public mutating func removeAll(removed: (Slot, EvictionReason) -> Void) {
        trimIdle(usedBefore: .max, removed: removed)
    }

    /// Starts over as a new process would: no entries and no policy history.
    /// Nothing is counted as evicted or trimmed.
    @inlinable
    public mutating func restart() {
        storedPolicy.removeAll()
    }

    /// Applies a memory-pressure reaction.
    @inlinable
    public mutating func respond(
        to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void
    ) {
        switch reaction {
        case .ignore: break
        case .purgeAll: removeAll(removed: removed)
        case .trimToFraction(let fraction):
            trim(toCost: Int(Double(storedPolicy.limits.costLimit) * fraction), removed: removed)
        case .trimIdle(let seconds):
            let age = UInt64(max(seconds, 0) * 1e9)
            trimIdle(usedBefore: now > age ? now - age : 0, removed: removed)
        }
    }

    @inlinable
    mutating func reserve(_ slot: Slot) {
        guard tracksLastUse || timeToLive != nil else { return }
        let needed = Int(slot) + 1
        guard needed > lastUse.count else { return }
        let extra = max(needed, lastUse.count * 2, 16) - lastUse.count
        lastUse.append(contentsOf: repeatElement(0, count: extra))
        if timeToLive != nil { expiry.append(contentsOf: repeatElement(0, count: extra)) }
    }
}

