import Foundation

/// libCacheSim's `minimalIncrementCBF`, the frequency estimate of its W-TinyLFU:
/// counters sized for `entries` keys at a 0.1% false-positive rate (about 14.4
/// counters per key, 10 hash positions from two XXH64 hashes of the key). An
/// add raises all of a key's counters; the estimate is their minimum; a decay
/// halves every counter.
///
/// libCacheSim sizes it by the main cache's size in its unit, so a cache of
/// 100 MB by bytes gets 2³¹ counters, nearly all untouched: above 2²² counters
/// they are kept sparse, in a dictionary, which gives the same estimates.
struct CountingBloomFilter {
    private static let errorRate = 0.001
    private static let denseLimit = 1 << 22
    let hashes: Int
    let counterCount: Int
    private var dense: [UInt32]
    private var sparse: [UInt32: UInt32] = [:]

    init(entries: Int) {
        // The arithmetic of minimalIncrementCBF_init, in its order, so the sizes round the same.
        let entries = Double(min(max(entries, 0), Int(Int32.max)))
        let bitsPerEntry = -log(Self.errorRate) / 0.480453013918201
        let hashes = Int((0.693147180559945 * bitsPerEntry).rounded(.up))
        var counters = Int(min((bitsPerEntry * entries).rounded(.up), Double(Int32.max)))
        if counters < hashes { counters = hashes * 2 }
        self.hashes = hashes
        counterCount = counters
        dense = counters <= Self.denseLimit ? Self.zeroed(counters) : []
    }

    /// The estimated count of the key: the smallest of its counters.
    func estimate(_ key: UInt64) -> UInt32 {
        let (a, b) = hashPair(key)
        var minimum = UInt32.max
        for index in 0..<UInt32(hashes) { minimum = min(minimum, self[position(a, b, index)]) }
        return minimum
    }

    /// Counts one more occurrence of the key.
    mutating func add(_ key: UInt64) {
        let (a, b) = hashPair(key)
        for index in 0..<UInt32(hashes) { self[position(a, b, index)] &+= 1 }
    }

    /// Halves every counter, so old counts fade.
    mutating func decay() {
        if dense.isEmpty {
            sparse = sparse.compactMapValues { $0 > 1 ? $0 >> 1 : nil }
        } else {
            for index in dense.indices { dense[index] >>= 1 }
        }
    }

    mutating func removeAll() {
        sparse = [:]
        dense.withUnsafeMutableBytes { bytes in if let base = bytes.baseAddress { _ = memset(base, 0, bytes.count) } }
    }

    /// A million counters and more, cleared in one `memset` (a relaunch clears them too).
    private static func zeroed(_ count: Int) -> [UInt32] {
        guard count > 0 else { return [] }  // as in `Array.inHugePages`: never write the shared empty array
        return [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { _ = memset(base, 0, count * MemoryLayout<UInt32>.stride) }
            initialized = count
        }
    }

    /// The low 32 bits of two XXH64 hashes of the key, with libCacheSim's seeds.
    @inline(__always)
    private func hashPair(_ key: UInt64) -> (UInt32, UInt32) {
        (UInt32(truncatingIfNeeded: XXH64.hash(key, seed: 0x1234_5678)), UInt32(truncatingIfNeeded: XXH64.hash(key, seed: 0x1234_4321)))
    }

    /// The `index`-th position, `(a + index·b) mod counters` in 32-bit unsigned arithmetic, as in C.
    @inline(__always)
    private func position(_ a: UInt32, _ b: UInt32, _ index: UInt32) -> Int {
        Int((a &+ index &* b) % UInt32(counterCount))
    }

    private subscript(position: Int) -> UInt32 {
        get { dense.isEmpty ? sparse[UInt32(position), default: 0] : dense[position] }
        set {
            if dense.isEmpty { sparse[UInt32(position)] = newValue } else { dense[position] = newValue }
        }
    }
}
