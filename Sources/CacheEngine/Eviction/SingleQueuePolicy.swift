/// The one queue FIFO, LRU, CLOCK and SIEVE keep their entries in: oldest at the front, each
/// entry with a reference bit. Opaque outside this module: only those policies read or change it.
public struct SlotQueue {
    @usableFromInline var table = SlotTable()
    @usableFromInline var list = ThreadedList(id: 1)

    @inlinable init() {}

    @inlinable var isEmpty: Bool { list.isEmpty }
    @inlinable var front: Slot { list.front }
    /// The front and the entry after it (`SlotTable.none` where there is none).
    @inlinable var oldestTwo: (Slot, Slot) {
        list.front == SlotTable.none ? (SlotTable.none, SlotTable.none) : (list.front, table.after(list.front))
    }

    /// The first two entries with a clear reference bit, from `start` towards the back, looking
    /// at a few entries only and not wrapping (`SlotTable.none` for each not found): the next
    /// victims of a hand at `start`, as far as a hint can name them without a search.
    @inlinable
    func firstTwoUnmarked(from start: Slot) -> (Slot, Slot) {
        let bound = 8
        var found = (SlotTable.none, SlotTable.none)
        var slot = start, looked = 0
        while slot != SlotTable.none, looked < bound {
            if table.counter[Int(slot)] == 0 {
                if found.0 != SlotTable.none { return (found.0, slot) }
                found.0 = slot
            }
            slot = table.after(slot)
            looked += 1
        }
        return found
    }

    @inlinable @inline(__always)
    mutating func append(_ slot: Slot, cost: Int) { table.append(slot, cost: cost, to: &list) }

    @inlinable @inline(__always)
    mutating func unlink(_ slot: Slot) { table.unlink(slot, from: &list) }

    @inlinable @inline(__always)
    mutating func moveToBack(_ slot: Slot) { table.moveToBack(slot, in: &list) }

    @inlinable @inline(__always)
    mutating func popFront() -> Slot? { table.popFront(&list) }

    /// Forgets every entry; the live cache's shadows stay attached.
    @usableFromInline
    mutating func removeAll() {
        table.removeAll()
        list = ThreadedList(id: 1)
    }

    /// Every entry, oldest first.
    func slotsFrontToBack() -> [Slot] {
        var slots: [Slot] = []
        slots.reserveCapacity(list.count)
        var slot = list.front
        while slot != SlotTable.none {
            slots.append(slot)
            slot = table.after(slot)
        }
        return slots
    }
}

/// A policy whose entries sit in one `SlotQueue`. The steps such policies share (counts, the
/// insert that makes room and appends, removal) are written once here, as libCacheSim keeps
/// them in its base functions; each policy says only what a hit does and which entry leaves.
public protocol SingleQueuePolicy: EvictionPolicy {
    var queue: SlotQueue { get set }
    /// Whether hits set the entry's reference bit (CLOCK, SIEVE): a new entry starts with it clear.
    static var keepsReferenceBits: Bool { get }
}

// Inlinable: a policy's calls from another module (the simulator's loop) would otherwise run
// these generic members unspecialised, a copy of the queue per call.
extension SingleQueuePolicy {
    @inlinable public var totalCost: Int { queue.list.cost }
    @inlinable public var count: Int { queue.list.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { queue.table.queue(of: slot) != 0 }
    @inlinable public func prefetch(_ slot: Slot) { queue.table.prefetch(slot, counter: Self.keepsReferenceBits) }
    @inlinable public static var hitsCanWait: Bool { true }

    @inlinable
    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        queue.table.reserve(entry.slot)
        makeRoom(for: entry.cost, evict: evict)
        if Self.keepsReferenceBits { queue.table.counter[Int(entry.slot)] = 0 }
        queue.append(entry.slot, cost: entry.cost)
        return true
    }

    @inlinable public mutating func remove(_ slot: Slot) { queue.unlink(slot) }

    @inlinable public mutating func removeAll() { queue.removeAll() }
}
