/// The disk tier's eviction model, shared by `DiskCache` and the simulator:
/// least-recent access over entries sized in bytes (the same `LRUPolicy` the
/// memory tier uses). When the bytes or the count go over their limits,
/// entries are evicted down to a low-water mark, so eviction runs in batches
/// rather than on every write.
public struct DiskIndexModel {
    public let byteLimit: Int
    public let countLimit: Int
    /// Eviction stops once size and count are at or below this fraction of their limits.
    public let lowWaterFraction: Double
    private var recency = LRUPolicy(limits: CacheLimits(costLimit: .max, maxEntryFraction: 1))

    public init(byteLimit: Int, countLimit: Int = .max, lowWaterFraction: Double = 0.7) {
        self.byteLimit = byteLimit
        self.countLimit = countLimit
        self.lowWaterFraction = min(max(lowWaterFraction, 0), 1)
    }

    public var totalBytes: Int { recency.totalCost }
    public var count: Int { recency.count }

    public func contains(_ slot: Slot) -> Bool { recency.contains(slot) }

    public mutating func recordAccess(_ slot: Slot) { recency.recordHit(slot) { _ in } }  // LRU never evicts on a hit

    /// Adds an entry (evicting nothing: that is `trim`'s job). An entry already
    /// there is replaced, as a file written again is: its new size, most recent.
    public mutating func insert(_ slot: Slot, bytes: Int) {
        if recency.contains(slot) { recency.remove(slot) }
        _ = recency.insert(NewEntry(slot: slot, cost: bytes, fingerprint: 0)) { _ in }
    }

    /// Removes an entry; one not on disk (an invalidation of a URL never stored) is left alone.
    public mutating func remove(_ slot: Slot) {
        guard recency.contains(slot) else { return }
        recency.remove(slot)
    }

    /// Whether a limit is exceeded.
    public var needsTrim: Bool { totalBytes > byteLimit || count > countLimit }

    /// Evicts least recently accessed entries down to the low-water mark.
    public mutating func trim(evict: (Slot) -> Void) {
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
    public func slotsByRecency() -> [Slot] { recency.slotsByRecency() }

    public mutating func removeAll() {
        recency.removeAll()
    }
}
