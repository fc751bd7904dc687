/// ARC (Megiddo and Modha, FAST 2003), as libCacheSim runs it with sizes:
/// T1 holds entries seen once recently, T2 entries seen at least twice; B1 and
/// B2 remember keys evicted from each. A target `p` for T1's size adapts: a
/// miss that finds its key in B1 grows it by max(|B2| / |B1|, 1), one in B2
/// shrinks it by max(|B1| / |B2|, 1) (sizes in the measure's units, so with a
/// cost limit `p` moves a byte at a time, as in libCacheSim's byte mode).
///
/// Sizes are measured in cost when there is a cost limit, else in entries; the
/// other limit, when set, still bounds the cache (eviction goes on until both hold).
///
/// - A hit in T1 moves the entry to T2; a hit in T2 makes it T2's newest.
/// - A key found in B1 or B2 is inserted into T2, others into T1.
/// - Making room after a ghost hit (REPLACE): evict T1's oldest into B1 when T1
///   is over `p` (or at `p` after a B2 hit, or T2 is empty), else T2's oldest into B2.
/// - Otherwise, when T1 and B1 with the newcomer exceed the cache, drop B1's oldest
///   and REPLACE (or, B1 empty, evict T1's oldest with no ghost); else, when all
///   four lists reach twice the cache, drop B2's oldest, then REPLACE.
public struct ARCPolicy: EvictionPolicy {
    public static let name = "ARC"
    public let limits: CacheLimits
    /// The cache's size in the measure (cost or entries).
    private let capacity: Int
    private let measuresCost: Bool
    @usableFromInline var table = SlotTable()
    @usableFromInline var recent = ThreadedList(id: 1)
    @usableFromInline var frequent = ThreadedList(id: 2)
    /// B1 and B2.
    private var ghosts = GhostLists()
    private var fingerprints = SlotFingerprints()
    /// The target size of T1.
    private(set) var target = 0.0
    /// While an insertion makes room: the ghost list its key was found in (0: none), and its size.
    private var returningFrom: UInt8 = 0
    private var incoming = 0

    public init(limits: CacheLimits) {
        self.limits = limits
        measuresCost = limits.costLimit != .max || limits.countLimit == .max
        capacity = measuresCost ? limits.costLimit : limits.countLimit
    }

    @inlinable public var totalCost: Int { recent.cost + frequent.cost }
    @inlinable public var count: Int { recent.count + frequent.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    @inlinable public func prefetch(_ slot: Slot) { table.prefetch(slot) }
    /// A hit unlinks the entry from its neighbours in T1 or T2.
    @inlinable public mutating func prefetchNeighbours(_ slot: Slot) { table.prefetchNeighbours(slot) }
    /// A new key is looked for in both ghost lists; and the miss coming files T1's or T2's
    /// oldest in a ghost list, so each one's fingerprint and the bucket it goes in start
    /// loading too, and the fingerprint of the entry after it, the victim after next.
    public mutating func prefetch(absent fingerprint: UInt64) {
        ghosts.prefetch(fingerprint)
        prefetchVictim(of: recent)
        prefetchVictim(of: frequent)
    }

    private func prefetchVictim(of list: ThreadedList) {
        guard !list.isEmpty else { return }
        ghosts.prefetch(fingerprints[list.front])
        let next = table.after(list.front)
        if next != SlotTable.none { fingerprints.prefetch(next) }
    }

    /// Whether the entry in `slot` is in T2 (for tests).
    func isFrequent(_ slot: Slot) -> Bool { table.queue(of: slot) == frequent.id }

    @inline(__always) private func size(_ list: ThreadedList) -> Int { measuresCost ? list.cost : list.count }
    @inline(__always) private func size(ofCost cost: Int) -> Int { measuresCost ? cost : 1 }

    /// Hits only reorder or count: they never evict.
    public static var hitsCanWait: Bool { true }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        if table.queue(of: slot) == recent.id {
            table.move(slot, from: &recent, to: &frequent)
        } else {
            table.moveToBack(slot, in: &frequent)
        }
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        // The ratio of the other ghost list's size to this one's before the key leaves it.
        func step(_ other: Int, _ this: Int) -> Double { this > 0 ? max(Double(other) / Double(this), 1) : 1 }
        let inRecentGhosts = ghosts.size(of: .recent), inFrequentGhosts = ghosts.size(of: .frequent)
        switch ghosts.remove(entry.fingerprint) {
        case .recent?:
            target = min(target + step(inFrequentGhosts, inRecentGhosts), Double(capacity))
            returningFrom = 1
        case .frequent?:
            target = max(target - step(inRecentGhosts, inFrequentGhosts), 0)
            returningFrom = 2
        case nil:
            break
        }
        incoming = size(ofCost: entry.cost)
        makeRoom(for: entry.cost, evict: evict)
        fingerprints.record(entry)
        if returningFrom != 0 {
            table.append(entry.slot, cost: entry.cost, to: &frequent)
        } else {
            table.append(entry.slot, cost: entry.cost, to: &recent)
        }
        returningFrom = 0
        incoming = 0
        return true
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &recent, &frequent)
    }

    public mutating func evictNext() -> Slot? {
        guard !recent.isEmpty || !frequent.isEmpty else { return nil }
        if returningFrom != 0 { return replace() }
        if size(recent) + ghosts.size(of: .recent) + incoming > capacity {
            if !ghosts.isEmpty(.recent) {
                ghosts.removeOldest(of: .recent)
                return replace()
            }
            if let victim = table.popFront(&recent) { return victim }
            return replace()
        }
        if size(recent) + ghosts.size(of: .recent) + size(frequent) + ghosts.size(of: .frequent) >= 2 * capacity,
           !ghosts.isEmpty(.frequent) {
            ghosts.removeOldest(of: .frequent)
        }
        return replace()
    }

    /// ARC's REPLACE: T1's oldest into B1, or T2's oldest into B2.
    private mutating func replace() -> Slot? {
        let recentSize = Double(size(recent))
        let fromRecent = (!recent.isEmpty && (recentSize > target || (recentSize == target && returningFrom == 2)))
            || frequent.isEmpty
        if fromRecent {
            guard let victim = table.popFront(&recent) else { return nil }
            ghosts.push(fingerprints[victim], size: size(ofCost: table.cost(of: victim)), to: .recent)
            return victim
        }
        guard let victim = table.popFront(&frequent) else { return nil }
        ghosts.push(fingerprints[victim], size: size(ofCost: table.cost(of: victim)), to: .frequent)
        return victim
    }

    public mutating func removeAll() {
        table.removeAll()
        recent = ThreadedList(id: 1)
        frequent = ThreadedList(id: 2)
        ghosts.removeAll()
        fingerprints.removeAll()
        target = 0
    }
}

extension ARCPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<ARCPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<ARCPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
