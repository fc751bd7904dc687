/// Finds a key's slot: an open-addressing hash table of slots (linear probing,
/// at most half full, backward-shift deletion). Each bucket holds a slot and the low
/// 32 bits of its key's hash, so a probe reads only the table, and a lookup compares a
/// key (which `MemoryCache` keeps by slot) only when those bits agree.
///
/// Against a `[Key: Slot]` dictionary it saves the second probe of an insert and
/// lets a caller look up by something that merely hashes and compares like a key
/// (`MemoryCache.value(forHash:matching:)`), without building the key.
@usableFromInline
struct SlotIndex {
    @usableFromInline
    struct Bucket {
        /// `SlotIndex.empty` when the bucket is.
        @usableFromInline var slot: Slot
        /// The low bits of the slot's hash: its home, and a check before comparing keys.
        @usableFromInline var tag: UInt32

        @inlinable
        init(slot: Slot, tag: UInt32) {
            self.slot = slot
            self.tag = tag
        }
    }

    /// A computed constant: a stored static would be read through a lazy initialiser's
    /// once-check from other modules' inlined code.
    @inlinable static var empty: Slot { -1 }

    /// Buckets by position; a power of two long (at most 2³¹, so a tag holds every home).
    @usableFromInline var buckets: [Bucket]
    @usableFromInline var count = 0

    @usableFromInline
    init() { buckets = Array(repeating: Bucket(slot: Self.empty, tag: 0), count: 16) }

    @inlinable
    var mask: Int { buckets.count &- 1 }

    @inlinable @inline(__always)
    static func tag(_ hash: Int) -> UInt32 { UInt32(truncatingIfNeeded: hash) }

    /// The slot whose key has `hash` and for which `matches` holds; nil when none.
    @inlinable @inline(__always)
    func find(hash: Int, matches: (Slot) -> Bool) -> Slot? {
        let mask = self.mask, tag = Self.tag(hash)
        var position = hash & mask
        while true {
            let bucket = buckets[position]
            if bucket.slot == Self.empty { return nil }
            if bucket.tag == tag, matches(bucket.slot) { return bucket.slot }
            position = (position &+ 1) & mask
        }
    }

    /// Indexes `slot` (not indexed yet) under `hash`.
    @inlinable @inline(__always)
    mutating func insert(_ slot: Slot, hash: Int) {
        if (count &+ 1) &* 2 > buckets.count { grow() }
        place(Bucket(slot: slot, tag: Self.tag(hash)))
        count &+= 1
    }

    /// Takes `slot` (indexed under `hash`) out, shifting back the entries after it
    /// that probed past it, so every lookup still ends at the first empty bucket.
    @inlinable @inline(__always)
    mutating func remove(_ slot: Slot, hash: Int) {
        let mask = self.mask
        var hole = hash & mask
        while buckets[hole].slot != slot { hole = (hole &+ 1) & mask }
        var next = (hole &+ 1) & mask
        while true {
            let candidate = buckets[next]
            if candidate.slot == Self.empty { break }
            // The candidate may fill the hole unless its home lies after the hole.
            let home = Int(candidate.tag) & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole] = candidate
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole].slot = Self.empty
        count &-= 1
    }

    @inlinable @inline(__always)
    mutating func place(_ bucket: Bucket) {
        let mask = self.mask
        var position = Int(bucket.tag) & mask
        while buckets[position].slot != Self.empty { position = (position &+ 1) & mask }
        buckets[position] = bucket
    }

    @usableFromInline
    mutating func grow() {
        let old = buckets
        precondition(old.count < 1 << 31, "a slot index holds fewer than 2³⁰ slots")
        buckets = Array(repeating: Bucket(slot: Self.empty, tag: 0), count: old.count * 2)
        for bucket in old where bucket.slot != Self.empty { place(bucket) }
    }
}
