/// First in, first out: hits change nothing; evict the oldest insertion.
public struct FIFOPolicy: EvictionPolicy {
    public static let name = "FIFO"
    public let limits: CacheLimits
    private var table = SlotTable()
    private var list = SlotList(id: 1)

    public init(limits: CacheLimits) { self.limits = limits }

    public var totalCost: Int { list.cost }
    public var count: Int { list.count }

    public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    public func prefetch(_ slot: Slot) { table.prefetch(slot) }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {}

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        makeRoom(for: entry.cost, evict: evict)
        table.append(entry.slot, cost: entry.cost, to: &list)
        return true
    }

    public mutating func remove(_ slot: Slot) { table.unlink(slot, from: &list) }

    public mutating func evictNext() -> Slot? { table.popFront(&list) }

    public mutating func removeAll() {
        table.removeAll()
        list = SlotList(id: 1)
    }
}
