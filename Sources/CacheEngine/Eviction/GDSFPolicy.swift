/// Greedy-Dual-Size-Frequency (Cherkasova, 1998): each entry's priority is
/// `L + frequency × missCost / cost`; the lowest priority is evicted and `L`
/// (the inflation clock) rises to the evicted priority, so entries that stop
/// being used age out. With `missCost` = bytes to download it keeps small,
/// popular, expensive-to-fetch images; ties go to the least recently used.
/// With a uniform miss cost it is GDSF(1), libCacheSim's GDSF: priority
/// `L + frequency × 10⁶ / cost` (its constant, so priorities round alike),
/// and its order on a miss: insert at the current `L`, then evict the lowest
/// until the cache fits, so a newcomer that is lowest is not kept.
///
/// Unlike the queue policies this needs a priority queue: accesses cost
/// O(log n) in an indexed binary heap.
public struct GDSFPolicy: EvictionPolicy {
    public static let name = "GDSF"

    /// What a miss on an entry is taken to cost.
    public enum MissCost: Sendable, Hashable {
        /// The bytes to download it again (`NewEntry.missCost`).
        case download
        /// The same for every entry.
        case uniform
    }

    public let limits: CacheLimits
    public let missCostModel: MissCost
    public private(set) var totalCost = 0
    /// The inflation clock `L`.
    public private(set) var clock = 0.0
    private var heap = IndexedHeap()
    private var frequency: [UInt32] = []
    private var cost: [Int] = []
    private var missCost: [Int] = []
    private var useCounter: UInt64 = 0

    public init(limits: CacheLimits) { self.init(limits: limits, missCost: .download) }

    public init(limits: CacheLimits, missCost: MissCost) {
        self.limits = limits
        missCostModel = missCost
    }

    public var count: Int { heap.count }

    public func contains(_ slot: Slot) -> Bool { heap.contains(slot) }

    /// Hits only reorder or count: they never evict.
    public static var hitsCanWait: Bool { true }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        frequency[Int(slot)] &+= 1
        heap.update(slot, priority: priority(of: slot), tieBreaker: nextUse())
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        // GDSF(1) takes libCacheSim's order: the newcomer enters at the current L,
        // then the lowest leave until the cache fits, the newcomer too if it is lowest.
        // GDSF by download bytes takes the paper's: room first, then the newcomer at the raised L.
        let insertsFirst = missCostModel == .uniform
        if !insertsFirst { makeRoom(for: entry.cost, evict: evict) }
        reserve(entry.slot)
        let index = Int(entry.slot)
        cost[index] = entry.cost
        missCost[index] = missCostModel == .uniform ? 1_000_000 : max(entry.missCost, 1)
        frequency[index] = 1
        heap.insert(entry.slot, priority: priority(of: entry.slot), tieBreaker: nextUse())
        totalCost += entry.cost
        guard insertsFirst else { return true }
        var admitted = true
        while limits.isOver(cost: totalCost, count: count - 1, adding: 0), let victim = evictNext() {
            if victim == entry.slot { admitted = false }
            evict(victim)
        }
        return admitted
    }

    public mutating func remove(_ slot: Slot) {
        heap.remove(slot)
        totalCost -= cost[Int(slot)]
    }

    public mutating func evictNext() -> Slot? {
        guard let lowest = heap.first else { return nil }
        clock = heap.priority(of: lowest)
        remove(lowest)
        return lowest
    }

    public mutating func removeAll() { self = GDSFPolicy(limits: limits, missCost: missCostModel) }

    private func priority(of slot: Slot) -> Double {
        let index = Int(slot)
        return clock + Double(frequency[index]) * Double(missCost[index]) / Double(max(cost[index], 1))
    }

    private mutating func nextUse() -> UInt64 {
        useCounter += 1
        return useCounter
    }

    private mutating func reserve(_ slot: Slot) {
        let needed = Int(slot) + 1
        guard needed > cost.count else { return }
        let extra = max(needed, cost.count * 2, 16) - cost.count
        frequency.append(contentsOf: repeatElement(0, count: extra))
        cost.append(contentsOf: repeatElement(0, count: extra))
        missCost.append(contentsOf: repeatElement(0, count: extra))
    }
}

extension GDSFPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<GDSFPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<GDSFPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
