/// Approximate access counts for TinyLFU, as Caffeine keeps them: a count-min
/// sketch of 4-bit counters, sixteen to a 64-bit word, one word per expected entry
/// (rounded up to a power of two). A key has one counter in each of four words
/// chosen by four hashes; an access raises all four (those below 15), and its
/// estimate is the least of them. Once `10 × capacity` accesses have raised a
/// counter, every counter is halved, so old popularity fades.
///
/// The sketch starts unsized: until `ensureCapacity` is called (W-TinyLFU calls it
/// when the cache is half full) accesses are not counted and every estimate is 0.
struct FrequencySketch {
    private var words: [UInt64] = []
    private var sampleSize = 0
    /// Accesses that raised a counter since the last halving (adjusted by it).
    private var additions = 0

    init() {}

    var isSized: Bool { !words.isEmpty }

    /// Sizes the sketch for `entries` (at least one word); a sketch already that large
    /// is kept, a smaller one starts over empty.
    mutating func ensureCapacity(_ entries: Int) {
        let entries = min(max(entries, 0), Int(Int32.max) >> 1)
        guard words.count < entries || words.isEmpty else { return }
        var rounded = 1
        while rounded < entries { rounded <<= 1 }
        words = Array(repeating: 0, count: rounded)
        sampleSize = entries == 0 ? 10 : 10 * entries
        additions = 0
    }

    /// Estimated accesses of the key, 0...15.
    func frequency(_ fingerprint: UInt64) -> Int {
        guard isSized else { return 0 }
        let hash = spread(fingerprint)
        // Through one buffer: no bounds check per row (the mask keeps each index in range).
        return words.withUnsafeBufferPointer { words in
            let mask = words.count &- 1
            var least: UInt64 = 15
            for row in 0..<4 {
                let (word, shift) = Self.counter(hash, row: row, mask: mask)
                least = min(least, (words[word] >> shift) & 0xF)
            }
            return Int(least)
        }
    }

    /// Records one access of the key.
    mutating func increment(_ fingerprint: UInt64) {
        guard isSized else { return }
        let hash = spread(fingerprint)
        // Through one buffer: one uniqueness check, not one per row.
        let raised = words.withUnsafeMutableBufferPointer { words in
            let mask = words.count &- 1
            var raised = false
            for row in 0..<4 {
                let (word, shift) = Self.counter(hash, row: row, mask: mask)
                if (words[word] >> shift) & 0xF != 0xF {
                    words[word] &+= 1 << shift
                    raised = true
                }
            }
            return raised
        }
        guard raised else { return }
        additions += 1
        if additions == sampleSize { halve() }
    }

    /// The key's hash, spread so nearby fingerprints fall apart.
    @inline(__always)
    private func spread(_ fingerprint: UInt64) -> UInt64 { mix(fingerprint ^ 0x243F_6A88_85A3_08D3) }

    /// The row's counter: a word picked by the row's own hash of the key, and within it
    /// one of sixteen nibbles: four the key's low bits pick, one per row (so a key's four
    /// counters never share a nibble position).
    @inline(__always)
    private static func counter(_ hash: UInt64, row: Int, mask: Int) -> (word: Int, shift: UInt64) {
        let rowHash = mix(hash &+ UInt64(row + 1) &* 0x9E37_79B9_7F4A_7C15)
        let word = Int(truncatingIfNeeded: rowHash) & mask
        let nibble = Int(hash & 3) << 2 + row
        return (word, UInt64(nibble) << 2)
    }

    /// Halves every counter; the count of additions drops by half, and by a quarter of
    /// the odd counters (the halving's truncation), as Caffeine's does.
    private mutating func halve() {
        var odd = 0
        for index in words.indices {
            odd += (words[index] & 0x1111_1111_1111_1111).nonzeroBitCount
            words[index] = (words[index] >> 1) & 0x7777_7777_7777_7777
        }
        additions = (additions >> 1) - (odd >> 2)
    }
}
