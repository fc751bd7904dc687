/// Approximate access counts for TinyLFU: a count-min sketch of 4-bit counters
/// (four rows, sixteen counters per 64-bit word) behind a doorkeeper Bloom
/// filter that absorbs keys seen only once. After `10 × width` recorded
/// accesses every counter is halved and the doorkeeper cleared, so old
/// popularity fades.
struct FrequencySketch {
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
        counters = Array(repeating: 0, count: 4 * rounded / 16)
        doorkeeper = Array(repeating: 0, count: max(1, rounded / 64))
    }

    /// Estimated accesses of the key, 0...16.
    func frequency(_ fingerprint: UInt64) -> Int {
        Int(minimum(at: cells(fingerprint))) + (doorkeeperContains(fingerprint) ? 1 : 0)
    }

    /// Records one access of the key.
    mutating func increment(_ fingerprint: UInt64) {
        if !doorkeeperInsert(fingerprint) {
            // Conservative update: raise only the counters at the current minimum.
            let cells = cells(fingerprint)
            let minimum = minimum(at: cells)
            if minimum < Self.maxCount {
                raise(cells.0, ifAt: minimum)
                raise(cells.1, ifAt: minimum)
                raise(cells.2, ifAt: minimum)
                raise(cells.3, ifAt: minimum)
            }
        }
        samples += 1
        if samples >= 10 * width { halve() }
    }

    /// A counter's place: its word and the bit shift within it.
    private typealias Cell = (word: Int, shift: UInt64)

    /// The key's counter in each of the four rows, worked out once per call (each is a
    /// mix of the fingerprint with the row's seed).
    @inline(__always)
    private func cells(_ fingerprint: UInt64) -> (Cell, Cell, Cell, Cell) {
        (cell(fingerprint, row: 0, seed: 0x9E37_79B9_7F4A_7C15), cell(fingerprint, row: 1, seed: 0xC2B2_AE3D_27D4_EB4F),
         cell(fingerprint, row: 2, seed: 0x1656_67B1_9E37_79F9), cell(fingerprint, row: 3, seed: 0x27D4_EB2F_1656_67C5))
    }

    @inline(__always)
    private func cell(_ fingerprint: UInt64, row: Int, seed: UInt64) -> Cell {
        let counter = Int(truncatingIfNeeded: mix(fingerprint &+ seed)) & (width - 1)
        return (row * (width / 16) + counter >> 4, UInt64(counter & 15) << 2)
    }

    @inline(__always)
    private func count(at cell: Cell) -> UInt64 { (counters[cell.word] >> cell.shift) & 0xF }

    @inline(__always)
    private func minimum(at cells: (Cell, Cell, Cell, Cell)) -> UInt64 {
        min(count(at: cells.0), count(at: cells.1), count(at: cells.2), count(at: cells.3))
    }

    @inline(__always)
    private mutating func raise(_ cell: Cell, ifAt minimum: UInt64) {
        if count(at: cell) == minimum { counters[cell.word] += 1 << cell.shift }
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
        let bitA: UInt64 = 1 << UInt64(a & 63), bitB: UInt64 = 1 << UInt64(b & 63)
        let wasSet = doorkeeper[a >> 6] & bitA != 0 && doorkeeper[b >> 6] & bitB != 0
        doorkeeper[a >> 6] |= bitA
        doorkeeper[b >> 6] |= bitB
        return !wasSet
    }
}
