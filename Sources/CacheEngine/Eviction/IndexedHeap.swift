/// A binary min-heap of slots with O(log n) update and removal of any slot,
/// ordered by a primary priority and then a secondary tie-breaker.
package struct IndexedHeap {
    private(set) var slots: [Slot] = []
    private var position: [Int32] = []  // -1: not in the heap
    private var primary: [Double] = []
    private var secondary: [UInt64] = []

    package init() {}

    package var count: Int { slots.count }
    package var first: Slot? { slots.first }

    package func contains(_ slot: Slot) -> Bool {
        Int(slot) < position.count && position[Int(slot)] >= 0
    }

    package func priority(of slot: Slot) -> Double { primary[Int(slot)] }

    package mutating func insert(_ slot: Slot, priority: Double, tieBreaker: UInt64) {
        reserve(slot)
        primary[Int(slot)] = priority
        secondary[Int(slot)] = tieBreaker
        position[Int(slot)] = Int32(slots.count)
        slots.append(slot)
        siftUp(slots.count - 1)
    }

    package mutating func update(_ slot: Slot, priority: Double, tieBreaker: UInt64) {
        primary[Int(slot)] = priority
        secondary[Int(slot)] = tieBreaker
        let index = Int(position[Int(slot)])
        siftDown(index)
        siftUp(index)
    }

    package mutating func remove(_ slot: Slot) {
        let index = Int(position[Int(slot)])
        position[Int(slot)] = -1
        let last = slots.removeLast()
        guard index < slots.count else { return }
        slots[index] = last
        position[Int(last)] = Int32(index)
        siftDown(index)
        siftUp(index)
    }

    package mutating func popFirst() -> Slot? {
        guard let first = slots.first else { return nil }
        remove(first)
        return first
    }

    @inline(__always)
    private func below(_ a: Int, _ b: Int) -> Bool {
        let slotA = Int(slots[a]), slotB = Int(slots[b])
        if primary[slotA] != primary[slotB] { return primary[slotA] < primary[slotB] }
        return secondary[slotA] < secondary[slotB]
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        slots.swapAt(a, b)
        position[Int(slots[a])] = Int32(a)
        position[Int(slots[b])] = Int32(b)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard below(child, parent) else { return }
            swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < slots.count, below(left, smallest) { smallest = left }
            if right < slots.count, below(right, smallest) { smallest = right }
            guard smallest != parent else { return }
            swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func reserve(_ slot: Slot) {
        let needed = Int(slot) + 1
        guard needed > position.count else { return }
        let extra = max(needed, position.count * 2, 16) - position.count
        position.append(contentsOf: repeatElement(-1, count: extra))
        primary.append(contentsOf: repeatElement(0, count: extra))
        secondary.append(contentsOf: repeatElement(0, count: extra))
    }
}
