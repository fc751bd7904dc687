/// Policy metadata indexed by slot: intrusive doubly linked lists (several
/// queues can share one table, since an entry is in one queue at a time), the
/// entry's cost and which queue holds it, kept together per slot so a list
/// operation touches one cache line per entry; and a small per-policy counter
/// (reference bit, visited bit, frequency) beside them.
@usableFromInline
struct SlotTable {
    @usableFromInline static let none: Slot = -1

    /// 16 bytes, two thirds of the 24 it took: a move touches three entries at random, and a
    /// table of 100,000 slots (a cache of 10 % of a million objects) is larger than a core's
    /// own cache, so the fewer lines it spans the fewer of those touches miss. The cost is
    /// kept in 48 bits (`CacheLimits.largestEntryCost`).
    @usableFromInline
    struct Entry: BitwiseCopyable {
        @usableFromInline var previous: Slot = SlotTable.none
        @usableFromInline var next: Slot = SlotTable.none
        @usableFromInline var costLow: UInt32 = 0
        @usableFromInline var costHigh: UInt16 = 0
        /// Which queue holds the slot; 0 means not resident.
        @usableFromInline var queue: UInt8 = 0

        init() {}

        @inlinable
        init(previous: Slot, next: Slot, cost: Int, queue: UInt8) {
            self.previous = previous
            self.next = next
            costLow = UInt32(truncatingIfNeeded: cost)
            costHigh = UInt16(truncatingIfNeeded: cost >> 32)
            self.queue = queue
        }

        @inlinable var cost: Int { Int(costHigh) << 32 | Int(costLow) }
    }

    // Inlinable, with the methods below, so the simulator (another module) inlines the
    // single-queue policies' shared steps (`SingleQueuePolicy`) into its loop.
    @usableFromInline var entries: [Entry] = []
    /// Policy-defined small counter.
    @usableFromInline var counter: [UInt8] = []
    /// The live cache's shadow words (`SlotShadows`), for a policy whose hits only set a
    /// mark: stamped wherever a slot's mark is cleared. Nil in the simulator.
    @usableFromInline var shadows: UnsafePointer<SlotShadows>?

    init() {}

    /// Slots covered so far.
    var capacity: Int { entries.count }

    /// Grows the arrays to cover `slot`, doubling so growth is amortised O(1).
    @inlinable @inline(__always)
    mutating func reserve(_ slot: Slot) {
        if Int(slot) >= entries.count { grow(toCover: slot) }
    }

    @usableFromInline
    mutating func grow(toCover slot: Slot) {
        let grown = max(Int(slot) + 1, entries.count * 2, 16)
        entries = .inHugePages(count: grown, copying: entries, filledWith: Entry())
        counter = .inHugePages(count: grown, copying: counter, filledWith: 0)
    }

    @inlinable @inline(__always)
    func queue(of slot: Slot) -> UInt8 {
        Int(slot) < entries.count ? entries[Int(slot)].queue : 0
    }

    @inline(__always)
    func cost(of slot: Slot) -> Int { entries[Int(slot)].cost }

    /// Starts loading `slot`'s entry, and its counter when the policy reads it on a hit.
    @inlinable @inline(__always)
    func prefetch(_ slot: Slot, counter readsCounter: Bool = false) {
        entries.prefetchElement(Int(slot))
        if readsCounter { counter.prefetchElement(Int(slot)) }
    }

    /// Starts loading the entries before and after `slot` in its list, when it is in one.
    @inlinable @inline(__always)
    func prefetchNeighbours(_ slot: Slot) {
        guard queue(of: slot) != 0 else { return }
        let entry = entries[Int(slot)]
        if entry.previous != Self.none { entries.prefetchElement(Int(entry.previous)) }
        if entry.next != Self.none { entries.prefetchElement(Int(entry.next)) }
    }

    @inlinable @inline(__always)
    func after(_ slot: Slot) -> Slot { entries[Int(slot)].next }

    @inlinable @inline(__always)
    func before(_ slot: Slot) -> Slot { entries[Int(slot)].previous }

    /// Appends `slot` at the back (newest end) of `list`.
    @inlinable @inline(__always)
    mutating func append(_ slot: Slot, cost entryCost: Int, to list: inout ThreadedList) {
        entries[Int(slot)] = Entry(previous: list.back, next: Self.none, cost: entryCost, queue: list.id)
        if list.back != Self.none { entries[Int(list.back)].next = slot } else { list.front = slot }
        list.back = slot
        list.count += 1
        list.cost += entryCost
    }

    /// Unlinks `slot` from `list` (which must hold it) and marks it not resident.
    @inlinable @inline(__always)
    mutating func unlink(_ slot: Slot, from list: inout ThreadedList) {
        let entry = entries[Int(slot)]
        if entry.previous != Self.none { entries[Int(entry.previous)].next = entry.next } else { list.front = entry.next }
        if entry.next != Self.none { entries[Int(entry.next)].previous = entry.previous } else { list.back = entry.previous }
        list.count -= 1
        list.cost -= entry.cost
        entries[Int(slot)].queue = 0
    }

    /// Moves `slot` from wherever it is in `from` to the back of `to`.
    @inline(__always)
    mutating func move(_ slot: Slot, from: inout ThreadedList, to: inout ThreadedList) {
        let entryCost = entries[Int(slot)].cost
        unlink(slot, from: &from)
        append(slot, cost: entryCost, to: &to)
    }

    /// Moves `slot` to the back of the list that holds it.
    @inlinable @inline(__always)
    mutating func moveToBack(_ slot: Slot, in list: inout ThreadedList) {
        guard list.back != slot else { return }
        let entryCost = entries[Int(slot)].cost
        unlink(slot, from: &list)
        append(slot, cost: entryCost, to: &list)
    }

    /// Unlinks and returns the oldest slot of `list`; nil when it is empty.
    @inlinable @inline(__always)
    mutating func popFront(_ list: inout ThreadedList) -> Slot? {
        let front = list.front
        guard front != Self.none else { return nil }
        unlink(front, from: &list)
        return front
    }

    /// Unlinks `slot` from whichever of two lists holds it.
    @inline(__always)
    mutating func unlink(_ slot: Slot, fromWhicheverOf first: inout ThreadedList, _ second: inout ThreadedList) {
        if queue(of: slot) == first.id { unlink(slot, from: &first) } else { unlink(slot, from: &second) }
    }

    /// Unlinks `slot` from whichever of three lists holds it.
    @inline(__always)
    mutating func unlink(_ slot: Slot, fromWhicheverOf first: inout ThreadedList, _ second: inout ThreadedList, _ third: inout ThreadedList) {
        if queue(of: slot) == first.id { unlink(slot, from: &first) } else { unlink(slot, fromWhicheverOf: &second, &third) }
    }

    mutating func removeAll() {
        let shadows = self.shadows
        self = SlotTable()
        self.shadows = shadows
    }

    /// Clears `slot`'s mark (the counter of a policy whose hits only set it) and stamps its
    /// shadow, if any.
    @inlinable @inline(__always)
    mutating func clearMark(_ slot: Slot) {
        counter[Int(slot)] = 0
        if let shadows { shadows.pointee.stamp(slot) }
    }
}

/// Each resident slot's key fingerprint, for policies that remember evicted keys as ghosts
/// (the slot is reused once its entry leaves, so the key must be kept beside it).
struct SlotFingerprints {
    private var values: [UInt64] = []

    @inline(__always)
    mutating func record(_ entry: NewEntry) {
        let index = Int(entry.slot)
        if index >= values.count { values.append(contentsOf: repeatElement(0, count: max(index + 1, values.count * 2, 16) - values.count)) }
        values[index] = entry.fingerprint
    }

    @inline(__always)
    subscript(slot: Slot) -> UInt64 { values[Int(slot)] }

    /// Starts loading `slot`'s fingerprint.
    @inline(__always)
    func prefetch(_ slot: Slot) { values.prefetchElement(Int(slot)) }

    mutating func removeAll() { values = [] }
}

/// One queue threaded through a `SlotTable`: front is oldest, back is newest.
@usableFromInline
struct ThreadedList {
    @usableFromInline let id: UInt8
    @usableFromInline var front: Slot = SlotTable.none
    @usableFromInline var back: Slot = SlotTable.none
    @usableFromInline var count = 0
    @usableFromInline var cost = 0

    @inlinable init(id: UInt8) { self.id = id }

    @inlinable var isEmpty: Bool { front == SlotTable.none }
}
