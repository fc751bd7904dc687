/// A map from key fingerprints to integers, for what policies remember of evicted
/// keys (S3-FIFO's ghost queue, ARC's and 2Q's ghost lists, LIRS's non-resident
/// entries): open addressing with linear probing, at most half full, backward-shift
/// deletion, each bucket's fingerprint beside its value so a probe reads one cache line.
///
/// Fingerprints are already well-mixed 64-bit hashes, so a multiply places them;
/// a `[UInt64: Int]` runs each through seeded SipHash, which was about a third of
/// an S3-FIFO miss (the ghost queue looks up, removes and adds a key per miss).
/// Iteration order is never used, so the layout does not affect any decision.
struct FingerprintMap {
    private struct Bucket {
        var fingerprint: UInt64
        /// `FingerprintMap.vacant` when the bucket is empty.
        var value: Int
    }

    private static let vacant = Int.min
    private var buckets: [Bucket]
    /// 64 minus log2 of the bucket count: a fingerprint's home is the top bits of its product.
    private var shift: UInt64
    private(set) var count = 0

    init() {
        buckets = Array(repeating: Bucket(fingerprint: 0, value: Self.vacant), count: 16)
        shift = 60
    }

    private var mask: Int { buckets.count &- 1 }

    private func home(of fingerprint: UInt64) -> Int {
        Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The bucket holding `fingerprint`, or the empty bucket where its probe ends.
    private func position(of fingerprint: UInt64) -> (position: Int, found: Bool) {
        let mask = self.mask
        var position = home(of: fingerprint)
        while true {
            let bucket = buckets[position]
            if bucket.value == Self.vacant { return (position, false) }
            if bucket.fingerprint == fingerprint { return (position, true) }
            position = (position &+ 1) & mask
        }
    }

    func contains(_ fingerprint: UInt64) -> Bool { position(of: fingerprint).found }

    /// Starts loading the bucket where a probe for `fingerprint` begins.
    func prefetch(_ fingerprint: UInt64) { buckets.prefetchElement(home(of: fingerprint)) }

    /// The value stored under `fingerprint`; setting nil removes it. Values must not be `Int.min`.
    subscript(fingerprint: UInt64) -> Int? {
        get {
            let (position, found) = position(of: fingerprint)
            return found ? buckets[position].value : nil
        }
        set {
            if let newValue { updateValue(newValue, for: fingerprint) } else { _ = removeValue(for: fingerprint) }
        }
    }

    /// Stores `value` under `fingerprint` and returns the value it replaces, in one probe.
    /// Values must not be `Int.min`.
    @discardableResult
    mutating func updateValue(_ value: Int, for fingerprint: UInt64) -> Int? {
        precondition(value != Self.vacant, "FingerprintMap cannot store Int.min")
        var (position, found) = position(of: fingerprint)
        if found {
            defer { buckets[position].value = value }
            return buckets[position].value
        }
        if (count &+ 1) &* 2 > buckets.count {
            grow()
            position = self.position(of: fingerprint).position
        }
        buckets[position] = Bucket(fingerprint: fingerprint, value: value)
        count &+= 1
        return nil
    }

    /// Removes `fingerprint` and returns its value, shifting back the buckets after it
    /// that probed past it, so every lookup still ends at the first empty bucket.
    mutating func removeValue(for fingerprint: UInt64) -> Int? {
        let (position, found) = position(of: fingerprint)
        guard found else { return nil }
        let removed = buckets[position].value
        let mask = self.mask
        var hole = position
        var next = (hole &+ 1) & mask
        while true {
            let candidate = buckets[next]
            if candidate.value == Self.vacant { break }
            // The candidate may fill the hole unless its home lies after the hole.
            let home = home(of: candidate.fingerprint)
            if (next &- home) & mask >= (next &- hole) & mask {
                buckets[hole] = candidate
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole].value = Self.vacant
        count &-= 1
        return removed
    }

    mutating func removeAll() { self = FingerprintMap() }

    private mutating func grow() {
        let old = buckets
        buckets = .inHugePages(count: old.count * 2, filledWith: Bucket(fingerprint: 0, value: Self.vacant))
        shift -= 1
        for bucket in old where bucket.value != Self.vacant {
            buckets[position(of: bucket.fingerprint).position] = bucket
        }
    }
}
