/// SIEVE (Zhang et al., NSDI 2024): a FIFO queue with a visited bit and a hand.
/// Hits set the bit. To evict, the hand walks from the oldest entry towards the
/// newest, clearing bits it passes, and evicts the first unvisited entry; it
/// stays where it stopped for the next eviction and wraps to the oldest entry at
/// the end. Unlike CLOCK, survivors keep their place in the queue.
public struct SIEVEPolicy: EvictionPolicy {
    public static let name = "SIEVE"
    public let limits: CacheLimits
    private var table = SlotTable()
    private var list = SlotList(id: 1)
    /// The next entry the hand examines; `none` means start from the oldest.
    private(set) var hand: Slot = SlotTable.none

    public init(limits: CacheLimits) { self.limits = limits }

    public var totalCost: Int { list.cost }
    public var count: Int { list.count }

    public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    public func prefetch(_ slot: Slot) { table.prefetch(slot, counter: true) }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) { table.counter[Int(slot)] = 1 }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        makeRoom(for: entry.cost, evict: evict)
        table.counter[Int(entry.slot)] = 0
        table.append(entry.slot, cost: entry.cost, to: &list)
        return true
    }

    public mutating func remove(_ slot: Slot) {
        if hand == slot { hand = table.after(slot) }
        table.unlink(slot, from: &list)
    }

    public mutating func evictNext() -> Slot? {
        guard !list.isEmpty else { return nil }
        var candidate = hand == SlotTable.none ? list.front : hand
        while table.counter[Int(candidate)] != 0 {
            table.counter[Int(candidate)] = 0
            candidate = table.after(candidate)
            if candidate == SlotTable.none { candidate = list.front }
        }
        hand = table.after(candidate)
        table.unlink(candidate, from: &list)
        return candidate
    }

    public mutating func removeAll() {
        table.removeAll()
        list = SlotList(id: 1)
        hand = SlotTable.none
    }
}
