import Synchronization

/// Finds a key's slot: an open-addressing hash table of slots (linear probing,
/// at most half full, backward-shift deletion). Each bucket holds a slot and the low
/// 32 bits of its key's hash, so a probe reads only the table, and a lookup compares a
/// key (which `MemoryCache` keeps by slot) only when those bits agree.
///
/// Against a `[Key: Slot]` dictionary it saves the second probe of an insert and
/// lets a caller look up by something that merely hashes and compares like a key
/// (`MemoryCache.value(forHash:matching:)`), without building the key.
///
/// One writer at a time changes it; readers may probe it meanwhile (`MemoryCache`'s hits
/// without the lock): each bucket is one atomic word, and a table that grows is replaced
/// whole, the old one kept (linked from the new) until the index goes, so a reader may
/// probe without announcing itself and announce only to follow a slot
/// (`find(hash:entering:matches:)`). The tables kept add up to less than the current one.
/// Nothing here is mutating: the writer changes only the table, never the variable that
/// holds its address, which readers read (ThreadSanitizer would see a mutating call as a
/// write to it).
/// A reader may miss a slot a writer is moving, never find one that is not there
/// (it compares the key), so only its hits are trusted.
@usableFromInline
struct SlotIndex: ~Copyable {
    /// A bucket: the slot in the high half (`empty`'s bits when none), the tag in the low.
    @usableFromInline typealias Bucket = UInt64

    /// A computed constant: a stored static would be read through a lazy initialiser's
    /// once-check from other modules' inlined code.
    @inlinable static var empty: Slot { -1 }
    @inlinable static var emptyBucket: Bucket { 0xFFFF_FFFF_0000_0000 }
    /// Bytes before the buckets: the mask and the table this one replaced, and on the next
    /// line the count (which readers do not read).
    @inlinable static var header: Int { 128 }

    /// The table: its mask, the table it replaced, its count, then its buckets (a power of
    /// two of them, at most 2³¹, so a tag holds every home). The address alone is here,
    /// where readers read it.
    @usableFromInline let table: Atomic<UnsafeMutableRawPointer>

    /// How many slots it holds.
    @inlinable var count: Int {
        get { table.load(ordering: .relaxed).load(fromByteOffset: 64, as: Int.self) }
        nonmutating set { table.load(ordering: .relaxed).storeBytes(of: newValue, toByteOffset: 64, as: Int.self) }
    }

    @usableFromInline
    init() { table = Atomic(Self.makeTable(buckets: 16)) }

    // Inlinable, as `SlotEntries`' deinit: Swift 6.3's optimiser crashes inlining a
    // resilient one into the inlinable code that sets a `State`'s index.
    @inlinable deinit {
        var table: UnsafeMutableRawPointer? = self.table.load(ordering: .relaxed)
        while let current = table {
            table = Self.replaced(by: current)
            Self.free(current)
        }
    }

    @inlinable @inline(__always)
    static func slot(_ bucket: Bucket) -> Slot { Slot(truncatingIfNeeded: Int64(bitPattern: bucket) >> 32) }

    @inlinable @inline(__always)
    static func tag(_ hash: Int) -> UInt32 { UInt32(truncatingIfNeeded: hash) }

    @inlinable @inline(__always)
    static func bucket(slot: Slot, tag: UInt32) -> Bucket { UInt64(UInt32(bitPattern: slot)) << 32 | UInt64(tag) }

    @inlinable @inline(__always)
    static func mask(of table: UnsafeMutableRawPointer) -> Int { table.load(as: Int.self) }

    @inlinable @inline(__always)
    static func buckets(of table: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Atomic<Bucket>> {
        (table + header).assumingMemoryBound(to: Atomic<Bucket>.self)
    }

    @inlinable @inline(__always)
    static func replaced(by table: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        UnsafeMutableRawPointer(bitPattern: table.load(fromByteOffset: 8, as: Int.self))
    }

    /// How many buckets (for tests).
    var capacity: Int { Self.mask(of: table.load(ordering: .relaxed)) + 1 }

    /// The slot whose key has `hash` and for which `matches` holds; nil when none (the writer's
    /// lookup: nothing moves under it, so the recheck below always holds).
    @inlinable @inline(__always)
    func find(hash: Int, matches: (Slot) -> Bool) -> Slot? {
        find(hash: hash, entering: {}, matches: matches)
    }

    /// The same for a reader beside the writer that has not announced itself: it probes the
    /// table (never freed while the index lives) and calls `enter` (which announces it, so no
    /// entry it then follows can be freed) before it follows a slot whose tag agrees, and
    /// follows it only if the bucket still holds it then (a sequentially consistent load,
    /// ordered with the writer's fence before it frees: `LockedStripes.reclaim`). A miss
    /// announces nothing.
    @inlinable @inline(__always)
    func find(hash: Int, entering enter: () -> Void, matches: (Slot) -> Bool) -> Slot? {
        let table = self.table.load(ordering: .acquiring)
        let mask = Self.mask(of: table), buckets = Self.buckets(of: table), tag = Self.tag(hash)
        var position = hash & mask
        while true {
            let bucket = buckets[position].load(ordering: .acquiring)
            let slot = Self.slot(bucket)
            if slot == Self.empty { return nil }
            if UInt32(truncatingIfNeeded: bucket) == tag {
                enter()
                guard buckets[position].load(ordering: .sequentiallyConsistent) == bucket else { return nil }
                if matches(slot) { return slot }
            }
            position = (position &+ 1) & mask
        }
    }

    /// Indexes `slot` (not indexed yet) under `hash`.
    @inlinable @inline(__always)
    func insert(_ slot: Slot, hash: Int) {
        if (count &+ 1) &* 2 > Self.mask(of: table.load(ordering: .relaxed)) &+ 1 { grow() }
        Self.place(Self.bucket(slot: slot, tag: Self.tag(hash)), in: table.load(ordering: .relaxed))
        count &+= 1
    }

    /// Takes `slot` (indexed under a hash with this `tag`, which holds its home) out, shifting
    /// back the entries after it that probed past it, so every lookup still ends at the first
    /// empty bucket.
    @inlinable @inline(__always)
    func remove(_ slot: Slot, tag: UInt32) {
        let table = self.table.load(ordering: .relaxed)
        let mask = Self.mask(of: table), buckets = Self.buckets(of: table)
        var hole = Int(tag) & mask
        while Self.slot(buckets[hole].load(ordering: .relaxed)) != slot { hole = (hole &+ 1) & mask }
        var next = (hole &+ 1) & mask
        while true {
            let candidate = buckets[next].load(ordering: .relaxed)
            if Self.slot(candidate) == Self.empty { break }
            // The candidate may fill the hole unless its home lies after the hole.
            let home = Int(truncatingIfNeeded: candidate) & Int(UInt32.max) & mask
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole].store(candidate, ordering: .releasing)
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole].store(Self.emptyBucket, ordering: .releasing)
        count &-= 1
    }

    @inlinable @inline(__always)
    static func place(_ bucket: Bucket, in table: UnsafeMutableRawPointer) {
        let mask = Self.mask(of: table), buckets = Self.buckets(of: table)
        var position = Int(UInt32(truncatingIfNeeded: bucket)) & mask
        while slot(buckets[position].load(ordering: .relaxed)) != empty { position = (position &+ 1) & mask }
        buckets[position].store(bucket, ordering: .releasing)
    }

    /// Builds a table twice as large and puts it in place, the old one linked from it.
    @usableFromInline
    func grow() {
        let old = table.load(ordering: .relaxed)
        let size = Self.mask(of: old) + 1
        precondition(size < 1 << 31, "a slot index holds fewer than 2³⁰ slots")
        let grown = Self.makeTable(buckets: size * 2, replacing: old)
        grown.storeBytes(of: count, toByteOffset: 64, as: Int.self)
        let buckets = Self.buckets(of: old)
        for position in 0..<size {
            let bucket = buckets[position].load(ordering: .relaxed)
            if Self.slot(bucket) != Self.empty { Self.place(bucket, in: grown) }
        }
        table.store(grown, ordering: .releasing)
    }

    static func makeTable(buckets count: Int, replacing replaced: UnsafeMutableRawPointer? = nil) -> UnsafeMutableRawPointer {
        let table = UnsafeMutableRawPointer.allocate(
            byteCount: header + count * MemoryLayout<Atomic<Bucket>>.stride, alignment: 64)
        table.storeBytes(of: count - 1, as: Int.self)
        table.storeBytes(of: Int(bitPattern: replaced), toByteOffset: 8, as: Int.self)
        table.storeBytes(of: 0, toByteOffset: 64, as: Int.self)
        let buckets = (table + header).bindMemory(to: Atomic<Bucket>.self, capacity: count)
        for position in 0..<count { (buckets + position).initialize(to: Atomic(emptyBucket)) }
        return table
    }

    @usableFromInline
    static func free(_ table: UnsafeMutableRawPointer) { table.deallocate() }
}
