/// A dense integer handle for one cache entry. The owner (the live cache or the
/// simulator) maps keys to slots; policies only ever see slots.
public typealias Slot = Int32

/// How much a cache may hold.
public struct CacheLimits: Sendable, Hashable {
    /// Most total cost (for images: decoded pixel bytes).
    public var costLimit: Int
    /// Most entries; `Int.max` for none.
    public var countLimit: Int
    /// Entries costing more than this fraction of `costLimit` are refused, so one
    /// huge image cannot flush the whole cache (Nuke uses 10%).
    public var maxEntryFraction: Double

    public init(costLimit: Int, countLimit: Int = .max, maxEntryFraction: Double = 0.1) {
        self.costLimit = max(0, costLimit)
        self.countLimit = max(0, countLimit)
        self.maxEntryFraction = maxEntryFraction
    }

    /// The largest cost a single entry may have: the fraction of the cost limit, and never
    /// more than `largestEntryCost`.
    public var maxEntryCost: Int {
        let cost = Double(costLimit) * min(max(maxEntryFraction, 0), 1)
        return cost >= Double(Self.largestEntryCost) ? Self.largestEntryCost : Int(cost)
    }

    /// The largest cost any entry may have, with no cost limit too: 2^48 - 1 (256 TiB as
    /// bytes). Policies keep an entry's cost in 48 bits, so a list policy's record of an entry
    /// takes 16 bytes rather than 24.
    public static var largestEntryCost: Int { 1 << 48 - 1 }

    /// Whether an entry of this cost may be stored at all.
    public func admits(cost: Int) -> Bool { cost >= 0 && cost <= maxEntryCost && countLimit > 0 }

    /// A queue's share of the limits: `fraction` of the cost limit and of the
    /// count limit, so a policy's queues are sized by whichever limit binds
    /// (an absent limit, `Int.max`, stays absent; a count share is at least one entry).
    @inlinable
    public func share(_ fraction: Double) -> QueueShare {
        QueueShare(
            cost: costLimit == .max ? .max : Int(Double(costLimit) * fraction),
            count: countLimit == .max ? .max : max(Int(Double(countLimit) * fraction), min(countLimit, 1)))
    }

    /// What is left of the limits once `share` is given to one queue (an absent limit stays absent).
    @inlinable
    public func remaining(after share: QueueShare) -> CacheLimits {
        CacheLimits(
            costLimit: costLimit == .max ? .max : costLimit - share.cost,
            countLimit: countLimit == .max ? .max : countLimit - share.count, maxEntryFraction: maxEntryFraction)
    }

    /// Whether a cache holding `count` entries of `cost` in total needs to evict to take one more of `extra`.
    @inlinable @inline(__always)
    public func isOver(cost: Int, count: Int, adding extra: Int) -> Bool {
        cost + extra > costLimit || count + 1 > countLimit
    }
}

/// Part of a cache's limits given to one of a policy's queues.
public struct QueueShare: Sendable, Hashable {
    public var cost: Int
    public var count: Int

    @inlinable
    public init(cost: Int, count: Int) {
        self.cost = cost
        self.count = count
    }

    /// Whether a queue holding this much has used its share.
    @inlinable
    public func isFilled(cost: Int, count: Int) -> Bool { cost >= self.cost || count >= self.count }

    /// Whether a queue holding this much is over its share.
    @inlinable
    public func isExceeded(cost: Int, count: Int) -> Bool { cost > self.cost || count > self.count }
}

/// What a policy learns about an entry when it is inserted.
public struct NewEntry: Sendable {
    public var slot: Slot
    /// What the entry costs against the cost limit.
    public var cost: Int
    /// A stable hash of the key: ghost queues and frequency sketches remember
    /// keys after their slot is reused, so they need more than the slot.
    public var fingerprint: UInt64
    /// What a miss on this entry costs to repair (bytes to download); GDSF weighs it.
    public var missCost: Int

    public init(slot: Slot, cost: Int, fingerprint: UInt64, missCost: Int = 1) {
        self.slot = slot
        self.cost = cost
        self.fingerprint = fingerprint
        self.missCost = missCost
    }
}

/// An eviction policy: decides which resident entry leaves when a new one needs room.
///
/// One implementation runs in both the thread-safe `MemoryCache` and the
/// single-threaded simulator, so simulated hit ratios are the live cache's.
/// Implementations keep struct-of-arrays metadata indexed by slot and allocate
/// nothing per access once their arrays have grown to the slot range.
public protocol EvictionPolicy {
    /// Short name for reports ("LRU", "S3-FIFO", …).
    static var name: String { get }

    var limits: CacheLimits { get }
    /// Total cost of resident entries.
    var totalCost: Int { get }
    /// Number of resident entries.
    var count: Int { get }

    /// Whether `slot` holds a resident entry.
    func contains(_ slot: Slot) -> Bool
    /// The resident entry in `slot` was used. Most policies only reorder; LIRS
    /// may demote and evict others on a hit, and `evict` hears each of them.
    mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void)
    /// Stores a new entry (its slot must not be resident: `CacheCore` replaces a
    /// resident one first), evicting as needed to stay within both limits; `evict`
    /// hears each evicted slot. Returns false when the policy declines to keep the
    /// entry (it is then not resident).
    mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool
    /// Removes a resident entry without counting it as an eviction.
    mutating func remove(_ slot: Slot)
    /// Evicts the entry the policy would evict next; nil when empty. Used by trims.
    mutating func evictNext() -> Slot?
    /// Forgets every entry and all history (ghosts, frequencies).
    mutating func removeAll()
    /// A hint that `slot` is about to be looked up: a policy whose metadata sits in
    /// per-slot arrays starts loading that slot's line from memory. It changes
    /// nothing; the simulator calls it a few requests ahead, since it knows the
    /// trace. The default does nothing.
    func prefetch(_ slot: Slot)
    /// The same hint for a key that holds no slot (a miss is coming): a policy that remembers
    /// evicted keys by fingerprint (ghosts) starts loading where it will look. Mutating only so
    /// the policy is passed where it lies rather than copied. The default does nothing.
    mutating func prefetch(absent fingerprint: UInt64)
    /// A third hint, a request or two before the lookup, once `prefetch(slot)` has brought the
    /// slot's metadata: a policy whose hit relinks the entry in a list starts loading its
    /// neighbours, which the relink writes. The default does nothing.
    mutating func prefetchNeighbours(_ slot: Slot)
    /// The slots the policy will evict next, soonest first, where it knows them without
    /// searching (a queue's oldest two); -1 for each it does not name. The
    /// simulator starts loading what evicting each touches beside the policy (the key its
    /// slot holds). A hint like the others. The default names none.
    func upcomingVictims() -> (soonest: Slot, next: Slot)
    /// Whether a hit's `recordHit` may wait, to be applied later with other threads'
    /// hits: true for a policy whose hits never evict or remove anything (they only
    /// reorder or count). The live cache then takes no lock for a hit; a policy that
    /// does not say (the default, false) has every hit applied under the lock.
    static var hitsCanWait: Bool { get }
    /// Whether a second hit on an entry changes nothing until the policy next clears it: FIFO,
    /// whose hits change nothing, and CLOCK and SIEVE, whose hits set a reference bit the
    /// policy clears itself. A policy keeping its entries in a `SlotQueue` that says so lets
    /// the live cache skip logging a hit whose effect is already logged (`SlotShadows`).
    /// False by default.
    static var hitsAreIdempotent: Bool { get }
}

extension EvictionPolicy {
    public func prefetch(_ slot: Slot) {}
    public mutating func prefetch(absent fingerprint: UInt64) {}
    public mutating func prefetchNeighbours(_ slot: Slot) {}
    /// Inlinable, so the simulator's loop, which asks after every insert, folds it away for
    /// the policies that name none.
    @inlinable public func upcomingVictims() -> (soonest: Slot, next: Slot) { (SlotTable.none, SlotTable.none) }
    public static var hitsCanWait: Bool { false }
    public static var hitsAreIdempotent: Bool { false }

    /// Evicts in policy order (`evictNext`) until an entry of `cost` fits both limits:
    /// what most policies' `insert` does first.
    @inlinable @inline(__always)
    public mutating func makeRoom(for cost: Int, evict: (Slot) -> Void) {
        while limits.isOver(cost: totalCost, count: count, adding: cost), let victim = evictNext() {
            evict(victim)
        }
    }
}
