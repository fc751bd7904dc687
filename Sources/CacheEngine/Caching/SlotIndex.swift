/// Finds a key's slot: an open-addressing hash table of slots (linear probing,
/// at most half full, backward-shift deletion), with each slot's hash kept beside
/// it. `MemoryCache` keeps the keys themselves by slot, so the index stores no key
/// and a lookup compares a key only when the hashes agree.
///
/// Against a `[Key: Slot]` dictionary it saves the second probe of an insert and
/// lets a caller look up by something that merely hashes and compares like a key
/// (`MemoryCache.value(forHash:matching:)`), without building the key.
@usableFromInline
struct SlotIndex {
    /// A computed constant: a stored static would be read through a lazy initialiser's
    /// once-check from other modules' inlined code.
    @inlinable static var empty: Slot { -1 }

    /// Slots by position; a power of two long.
    @usableFromInline var buckets: [Slot]
    /// The hash of each indexed slot's key, by slot.
    @usableFromInline var hashes: [Int] = []
    @usableFromInline var count = 0

    @usableFromInline
    init() { buckets = Array(repeating: Self.empty, count: 16) }

    @inlinable
    var mask: Int { buckets.count &- 1 }

    /// The slot whose key has `hash` and for which `matches` holds; nil when none.
    @inlinable @inline(__always)
    func find(hash: Int, matches: (Slot) -> Bool) -> Slot? {
        let mask = self.mask
        var position = hash & mask
        while true {
            let slot = buckets[position]
            if slot == Self.empty { return nil }
            if hashes[Int(slot)] == hash, matches(slot) { return slot }
            position = (position &+ 1) & mask
        }
    }

    /// Indexes `slot` (not indexed yet) under `hash`.
    @inlinable @inline(__always)
    mutating func insert(_ slot: Slot, hash: Int) {
        if (count &+ 1) &* 2 > buckets.count { grow() }
        let index = Int(slot)
        if index >= hashes.count {
            hashes.append(contentsOf: repeatElement(0, count: max(index &+ 1, hashes.count &* 2, 16) &- hashes.count))
        }
        hashes[index] = hash
        place(slot, hash: hash)
        count &+= 1
    }

    /// Takes `slot` (which must be indexed) out, shifting back the entries after it
    /// that probed past it, so every lookup still ends at the first empty bucket.
    @inlinable @inline(__always)
    mutating func remove(_ slot: Slot) {
        let mask = self.mask
        var hole = hashes[Int(slot)] & mask
        while buckets[hole] != slot { hole = (hole &+ 1) & mask }
        var next = (hole &+ 1) & mask
        while true {
            let candidate = buckets[next]
            if candidate == Self.empty { break }
            // The candidate may fill the hole unless its home lies after the hole.
            let home = hashes[Int(candidate)] & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole] = candidate
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole] = Self.empty
        count &-= 1
    }

    @inlinable @inline(__always)
    mutating func place(_ slot: Slot, hash: Int) {
        let mask = self.mask
        var position = hash & mask
        while buckets[position] != Self.empty { position = (position &+ 1) & mask }
        buckets[position] = slot
    }

    @usableFromInline
    mutating func grow() {
        let old = buckets
        buckets = Array(repeating: Self.empty, count: old.count * 2)
        for slot in old where slot != Self.empty { place(slot, hash: hashes[Int(slot)]) }
    }
}
