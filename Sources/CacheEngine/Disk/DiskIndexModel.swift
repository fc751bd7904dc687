/// The disk tier's eviction model, shared by `DiskCache` and the simulator:
/// least-recent access over entries sized in bytes (the same `LRUPolicy` the
/// memory tier uses). When the bytes or the count go over their limits,
/// entries are evicted down to a low-water mark, so eviction runs in batches
/// rather than on every write.
package struct DiskIndexModel {
    package let byteLimit: Int
    package let countLimit: Int
    /// Eviction stops once size and count are at or below this fraction of their limits.
    package let lowWaterFraction: Double
    private var recency = LRUPolicy(limits: CacheLimits(costLimit: .max, maxEntryFraction: 1))

    package init(byteLimit: Int, countLimit: Int = .max, lowWaterFraction: Double = 0.7) {
        self.byteLimit = byteLimit
        self.countLimit = countLimit
        self.lowWaterFraction = min(max(lowWaterFraction, 0), 1)
    }

    package var totalBytes: Int { recency.totalCost }
    package var count: Int { recency.count }

    package func contains(_ slot: Slot) -> Bool { recency.contains(slot) }

    /// A hint that `slot` is about to be looked up (`EvictionPolicy.prefetch`).
    package func prefetch(_ slot: Slot) { recency.prefetch(slot) }

    package mutating func recordAccess(_ slot: Slot) { recency.recordHit(slot) { _ in } }  // LRU never evicts on a hit

    /// Adds an entry (evicting nothing: that is `trim`'s job). An entry already
    /// there is replaced, as a file written again is: its new size, most recent.
    package mutating func insert(_ slot: Slot, bytes: Int) {
        if recency.contains(slot) { recency.remove(slot) }
        _ = recency.insert(NewEntry(slot: slot, cost: bytes, fingerprint: 0)) { _ in }
    }

    /// Removes an entry; one not on disk (an invalidation of a URL never stored) is left alone.
    package mutating func remove(_ slot: Slot) {
        guard recency.contains(slot) else { return }
        recency.remove(slot)
    }

    /// Whether a limit is exceeded.
    package var needsTrim: Bool { totalBytes > byteLimit || count > countLimit }

    /// Evicts least recently accessed entries down to the low-water mark.
    package mutating func trim(evict: (Slot) -> Void) {
        let byteTarget = lowWater(of: byteLimit)
        let countTarget = countLimit == .max ? .max : lowWater(of: countLimit)
        while totalBytes > byteTarget || count > countTarget, let victim = recency.evictNext() {
            evict(victim)
        }
    }

    /// The low-water fraction of `limit`, in integers (0.7 × 10,730 is
    /// 7,510.99… in floating point, which would evict one entry too many).
    private func lowWater(of limit: Int) -> Int {
        let permille = Int((lowWaterFraction * 1000).rounded())
        return limit / 1000 * permille + limit % 1000 * permille / 1000
    }

    /// Every entry, least recently accessed first.
    package func slotsByRecency() -> [Slot] { recency.slotsByRecency() }

    package mutating func removeAll() {
        recency.removeAll()
    }
}
