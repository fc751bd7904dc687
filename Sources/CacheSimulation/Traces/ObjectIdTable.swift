@_spi(Simulation) import CacheEngine

/// Interns 64-bit object ids to the slots their reader gives them (dense, in the order first
/// seen, shared with any keys that are not numbers): an open-addressing table
/// (linear probing, a multiplicative hash), several times quicker than a `Dictionary` on the
/// millions of lookups of a public trace, and a third of its memory. An id and its slot share
/// one 16-byte entry, so a lookup touches one cache line, which `prefetch` can ask for early.
struct ObjectIdTable {
    private struct Entry {
        var id: UInt64
        /// -1 when the entry is empty.
        var slot: TraceKey
    }

    private var entries: [Entry]
    private var mask: Int
    private var shift: UInt64
    private(set) var count = 0

    init(expected: Int = 1 << 16) {
        var capacity = 16
        while capacity * 3 < expected * 4 { capacity <<= 1 }
        entries = Array(repeating: Entry(id: 0, slot: -1), count: capacity)
        mask = capacity - 1
        shift = UInt64(64 - capacity.trailingZeroBitCount)
    }

    /// Starts loading the line where `id`'s probe starts: a hint a reader gives some records
    /// ahead, so the misses of several lookups overlap.
    @inline(__always)
    func prefetch(_ id: UInt64) {
        entries.prefetch(home(of: id))
    }

    /// The slot of `id`, and whether it was new (given `next`).
    @inline(__always)
    mutating func intern(_ id: UInt64, next: TraceKey) -> (slot: TraceKey, isNew: Bool) {
        var index = home(of: id)
        while true {
            let entry = entries[index]
            if entry.slot < 0 { break }
            if entry.id == id { return (entry.slot, false) }
            index = (index &+ 1) & mask
        }
        entries[index] = Entry(id: id, slot: next)
        count += 1
        // At most three quarters full: linear probes stay short, and the table stays small.
        if count * 4 > entries.count * 3 { grow() }
        return (next, true)
    }

    /// Where `id`'s probe starts: the top bits of a multiplicative hash.
    @inline(__always)
    private func home(of id: UInt64) -> Int {
        Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        let old = entries
        let capacity = old.count * 2
        entries = Array(repeating: Entry(id: 0, slot: -1), count: capacity)
        mask = capacity - 1
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        for entry in old where entry.slot >= 0 {
            var index = home(of: entry.id)
            while entries[index].slot >= 0 { index = (index &+ 1) & mask }
            entries[index] = entry
        }
    }
}
