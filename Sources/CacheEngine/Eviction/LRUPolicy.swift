/// Least recently used: a hit moves the entry to the back; evict from the front.
public struct LRUPolicy: EvictionPolicy {
    public static let name = "LRU"
    public let limits: CacheLimits
    private var table = SlotTable()
    private var list = SlotList(id: 1)

    public init(limits: CacheLimits) { self.limits = limits }

    public var totalCost: Int { list.cost }
    public var count: Int { list.count }

    public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    public func prefetch(_ slot: Slot) { table.prefetch(slot) }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) { table.moveToBack(slot, in: &list) }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        makeRoom(for: entry.cost, evict: evict)
        table.append(entry.slot, cost: entry.cost, to: &list)
        return true
    }

    public mutating func remove(_ slot: Slot) { table.unlink(slot, from: &list) }

    public mutating func evictNext() -> Slot? { table.popFront(&list) }

    /// Every entry, least recently used first.
    public func slotsByRecency() -> [Slot] {
        var slots: [Slot] = []
        slots.reserveCapacity(list.count)
        var slot = list.front
        while slot != SlotTable.none {
            slots.append(slot)
            slot = table.after(slot)
        }
        return slots
    }

    public mutating func removeAll() {
        table.removeAll()
        list = SlotList(id: 1)
    }
}
