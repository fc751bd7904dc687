import CacheEngine

/// Interns 64-bit object ids to dense slots, in the order first seen: an open-addressing table
/// (linear probing, a multiplicative hash), several times quicker than a `Dictionary` on the
/// millions of lookups of a public trace, and a third of its memory.
struct ObjectIdTable {
    private var ids: [UInt64]
    private var slots: [Slot]
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0

    init(expected: Int = 1 << 16) {
        var capacity = 16
        while capacity < expected * 2 { capacity <<= 1 }
        ids = Array(repeating: 0, count: capacity)
        slots = Array(repeating: -1, count: capacity)
        mask = capacity - 1
        shift = UInt64(64 - capacity.trailingZeroBitCount)
    }

    /// The slot of `id`, and whether it was new (given the next dense slot).
    @inline(__always)
    mutating func intern(_ id: UInt64) -> (slot: Slot, isNew: Bool) {
        var index = home(of: id)
        while true {
            let slot = slots[index]
            if slot < 0 { break }
            if ids[index] == id { return (slot, false) }
            index = (index &+ 1) & mask
        }
        let slot = Slot(count)
        ids[index] = id
        slots[index] = slot
        count += 1
        if count * 2 > slots.count { grow() }
        return (slot, true)
    }

    /// Where `id`'s probe starts: the top bits of a multiplicative hash.
    @inline(__always)
    private func home(of id: UInt64) -> Int {
        Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let oldIds = ids, oldSlots = slots
        let capacity = oldSlots.count * 2
        ids = Array(repeating: 0, count: capacity)
        slots = Array(repeating: -1, count: capacity)
        mask = capacity - 1
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        for (id, slot) in zip(oldIds, oldSlots) where slot >= 0 {
            var index = home(of: id)
            while slots[index] >= 0 { index = (index &+ 1) & mask }
            ids[index] = id
            slots[index] = slot
        }
    }
}
