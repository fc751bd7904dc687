/// CLOCK (second chance): a hit sets the entry's reference bit; the hand, at the
/// front of the queue, clears a set bit and passes the entry to the back, and
/// evicts the first entry whose bit is clear. New entries start with a clear bit.
public struct CLOCKPolicy: EvictionPolicy {
    public static let name = "CLOCK"
    public let limits: CacheLimits
    private var table = SlotTable()
    private var list = SlotList(id: 1)

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

    public mutating func remove(_ slot: Slot) { table.unlink(slot, from: &list) }

    public mutating func evictNext() -> Slot? {
        while list.front != SlotTable.none {
            let hand = list.front
            if table.counter[Int(hand)] == 0 {
                table.unlink(hand, from: &list)
                return hand
            }
            table.counter[Int(hand)] = 0
            table.moveToBack(hand, in: &list)
        }
        return nil
    }

    public mutating func removeAll() {
        table.removeAll()
        list = SlotList(id: 1)
    }
}
