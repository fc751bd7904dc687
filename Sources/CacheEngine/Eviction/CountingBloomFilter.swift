import CPrefetch
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
    /// ⌈2⁶⁴ / counterCount⌉, for `remainder`: a multiplication where each counter took a division.
    private let remainderMultiplier: UInt64
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
        remainderMultiplier = Self.remainderMultiplier(dividingBy: counters)
        dense = counters <= Self.denseLimit ? Self.zeroed(counters) : []
    }

    /// The estimated count of the key: the smallest of its counters.
    func estimate(_ key: UInt64) -> UInt32 {
        let (a, b) = hashPair(key)
        var minimum = UInt32.max
        for index in 0..<UInt32(hashes) { minimum = min(minimum, self[position(a, b, index)]) }
        return minimum
    }

    /// Starts loading the key's counters: worth it when they are out of a core's own cache.
    func prefetch(_ key: UInt64) {
        let (a, b) = hashPair(key)
        dense.withUnsafeBufferPointer { counters in
            guard let base = counters.baseAddress else { return }
            for index in 0..<UInt32(hashes) { cprefetch_for_write(base + position(a, b, index)) }
        }
    }

    /// Whether the dense counters are larger than a core's own cache is likely to be (1 MiB),
    /// so that loading them ahead can pay for the hashing it takes.
    var isWorthPrefetching: Bool { !dense.isEmpty && dense.count * MemoryLayout<UInt32>.stride > 1 << 20 }

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
        Self.remainder(a &+ index &* b, dividingBy: counterCount, multiplier: remainderMultiplier)
    }

    /// `value % divisor` with a multiplication for the division (Lemire, Kaser and Kurz, "Faster
    /// remainder by direct computation", 2019): exact for every 32-bit value and divisor.
    @inline(__always)
    static func remainder(_ value: UInt32, dividingBy divisor: Int, multiplier: UInt64) -> Int {
        Int((multiplier &* UInt64(value)).multipliedFullWidth(by: UInt64(divisor)).high)
    }

    static func remainderMultiplier(dividingBy divisor: Int) -> UInt64 { UInt64.max / UInt64(divisor) &+ 1 }

    private subscript(position: Int) -> UInt32 {
        get { dense.isEmpty ? sparse[UInt32(position), default: 0] : dense[position] }
        set {
            if dense.isEmpty { sparse[UInt32(position)] = newValue } else { dense[position] = newValue }
        }
    }
}
