/// Struct-of-arrays storage for policy metadata, indexed by slot: intrusive
/// doubly linked lists (several queues can share one table, since an entry is
/// in one queue at a time), the entry's cost, which queue holds it, and a small
/// per-policy counter (reference bit, visited bit, frequency).
struct SlotTable {
    static let none: Slot = -1

    private(set) var previous: [Slot] = []
    private(set) var next: [Slot] = []
    private(set) var cost: [Int] = []
    /// Which queue holds the slot; 0 means not resident.
    var queue: [UInt8] = []
    /// Policy-defined small counter.
    var counter: [UInt8] = []

    /// Grows the arrays to cover `slot`, doubling so growth is amortised O(1).
    @inline(__always)
    mutating func reserve(_ slot: Slot) {
        let needed = Int(slot) + 1
        guard needed > queue.count else { return }
        let newCount = max(needed, queue.count * 2, 16)
        let extra = newCount - queue.count
        previous.append(contentsOf: repeatElement(Self.none, count: extra))
        next.append(contentsOf: repeatElement(Self.none, count: extra))
        cost.append(contentsOf: repeatElement(0, count: extra))
        queue.append(contentsOf: repeatElement(0, count: extra))
        counter.append(contentsOf: repeatElement(0, count: extra))
    }

    @inline(__always)
    func queue(of slot: Slot) -> UInt8 {
        Int(slot) < queue.count ? queue[Int(slot)] : 0
    }

    @inline(__always)
    func cost(of slot: Slot) -> Int { cost[Int(slot)] }

    @inline(__always)
    func after(_ slot: Slot) -> Slot { next[Int(slot)] }

    /// Appends `slot` at the back (newest end) of `list`.
    @inline(__always)
    mutating func append(_ slot: Slot, cost entryCost: Int, to list: inout SlotList) {
        let index = Int(slot)
        previous[index] = list.back
        next[index] = Self.none
        cost[index] = entryCost
        queue[index] = list.id
        if list.back != Self.none { next[Int(list.back)] = slot } else { list.front = slot }
        list.back = slot
        list.count += 1
        list.cost += entryCost
    }

    /// Unlinks `slot` from `list` (which must hold it) and marks it not resident.
    @inline(__always)
    mutating func unlink(_ slot: Slot, from list: inout SlotList) {
        let index = Int(slot)
        let before = previous[index], after = next[index]
        if before != Self.none { next[Int(before)] = after } else { list.front = after }
        if after != Self.none { previous[Int(after)] = before } else { list.back = before }
        list.count -= 1
        list.cost -= cost[index]
        queue[index] = 0
    }

    /// Moves `slot` from wherever it is in `from` to the back of `to`.
    @inline(__always)
    mutating func move(_ slot: Slot, from: inout SlotList, to: inout SlotList) {
        let entryCost = cost[Int(slot)]
        unlink(slot, from: &from)
        append(slot, cost: entryCost, to: &to)
    }

    /// Moves `slot` to the back of the list that holds it.
    @inline(__always)
    mutating func moveToBack(_ slot: Slot, in list: inout SlotList) {
        guard list.back != slot else { return }
        let entryCost = cost[Int(slot)]
        unlink(slot, from: &list)
        append(slot, cost: entryCost, to: &list)
    }

    /// Unlinks and returns the oldest slot of `list`; nil when it is empty.
    @inline(__always)
    mutating func popFront(_ list: inout SlotList) -> Slot? {
        let front = list.front
        guard front != Self.none else { return nil }
        unlink(front, from: &list)
        return front
    }

    mutating func removeAll() {
        self = SlotTable()
    }
}

/// One queue threaded through a `SlotTable`: front is oldest, back is newest.
struct SlotList {
    let id: UInt8
    var front: Slot = SlotTable.none
    var back: Slot = SlotTable.none
    var count = 0
    var cost = 0

    init(id: UInt8) { self.id = id }

    var isEmpty: Bool { front == SlotTable.none }
}
