/// Approximate access counts for TinyLFU: a count-min sketch of 4-bit counters
/// (four rows, sixteen counters per 64-bit word) behind a doorkeeper Bloom
/// filter that absorbs keys seen only once. After `10 × width` recorded
/// accesses every counter is halved and the doorkeeper cleared, so old
/// popularity fades.
struct FrequencySketch {
    private static let rows = 4
    private static let seeds: [UInt64] = [
        0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x27D4_EB2F_1656_67C5,
    ]
    private static let maxCount: UInt64 = 15

    private(set) var width: Int
    private var counters: [UInt64]
    private var doorkeeper: [UInt64]
    private var samples = 0

    /// `width` counters per row, rounded up to a power of two (at least 64).
    init(width: Int) {
        var rounded = 64
        while rounded < width { rounded <<= 1 }
        self.width = rounded
        counters = Array(repeating: 0, count: Self.rows * rounded / 16)
        doorkeeper = Array(repeating: 0, count: max(1, rounded / 64))
    }

    /// Estimated accesses of the key, 0...16.
    func frequency(_ fingerprint: UInt64) -> Int {
        Int(counterMinimum(fingerprint)) + (doorkeeperContains(fingerprint) ? 1 : 0)
    }

    /// Records one access of the key.
    mutating func increment(_ fingerprint: UInt64) {
        if !doorkeeperInsert(fingerprint) {
            // Conservative update: raise only the counters at the current minimum.
            let minimum = counterMinimum(fingerprint)
            if minimum < Self.maxCount {
                for row in 0..<Self.rows {
                    let (word, shift) = position(fingerprint, row: row)
                    if (counters[word] >> shift) & 0xF == minimum { counters[word] += 1 << shift }
                }
            }
        }
        samples += 1
        if samples >= 10 * width { halve() }
    }

    private func counterMinimum(_ fingerprint: UInt64) -> UInt64 {
        var minimum = Self.maxCount
        for row in 0..<Self.rows {
            let (word, shift) = position(fingerprint, row: row)
            minimum = min(minimum, (counters[word] >> shift) & 0xF)
        }
        return minimum
    }

    mutating func removeAll() { self = FrequencySketch(width: width) }

    /// Halves every counter (the aging step) and clears the doorkeeper.
    private mutating func halve() {
        for index in counters.indices {
            counters[index] = (counters[index] >> 1) & 0x7777_7777_7777_7777
        }
        for index in doorkeeper.indices { doorkeeper[index] = 0 }
        samples /= 2
    }

    /// Word index and bit shift of the key's counter in `row`.
    @inline(__always)
    private func position(_ fingerprint: UInt64, row: Int) -> (Int, UInt64) {
        let hash = mix(fingerprint &+ Self.seeds[row])
        let counter = Int(truncatingIfNeeded: hash) & (width - 1)
        let word = row * (width / 16) + counter >> 4
        return (word, UInt64(counter & 15) << 2)
    }

    private func doorkeeperBits(_ fingerprint: UInt64) -> (Int, Int) {
        let hash = mix(fingerprint ^ 0xD6E8_FEB8_6659_FD93)
        let bits = doorkeeper.count * 64
        return (Int(truncatingIfNeeded: hash) & (bits - 1), Int(truncatingIfNeeded: hash >> 32) & (bits - 1))
    }

    private func doorkeeperContains(_ fingerprint: UInt64) -> Bool {
        let (a, b) = doorkeeperBits(fingerprint)
        return doorkeeper[a >> 6] & (1 << UInt64(a & 63)) != 0 && doorkeeper[b >> 6] & (1 << UInt64(b & 63)) != 0
    }

    /// Sets the key's bits; returns false when they were all set already.
    private mutating func doorkeeperInsert(_ fingerprint: UInt64) -> Bool {
        let (a, b) = doorkeeperBits(fingerprint)
        let wasSet = doorkeeperContains(fingerprint)
        doorkeeper[a >> 6] |= 1 << UInt64(a & 63)
        doorkeeper[b >> 6] |= 1 << UInt64(b & 63)
        return !wasSet
    }
}
