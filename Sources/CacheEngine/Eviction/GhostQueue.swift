/// A bounded FIFO of fingerprints of recently evicted keys, with O(1)
/// membership. Bounded by the total cost and the number of the entries it
/// remembers, so it covers as much history as the queue it feeds could hold
/// under either limit. Stores keys, not values: 16 bytes per ghost plus the index.
struct GhostQueue {
    private var ring: [(fingerprint: UInt64, cost: Int)] = []
    private var sequenceOfFirst = 0
    private var start = 0
    private var totalCost = 0
    /// Fingerprint → sequence number of its newest place in the ring.
    private var index: [UInt64: Int] = [:]

    var count: Int { ring.count - start }

    func contains(_ fingerprint: UInt64) -> Bool { index[fingerprint] != nil }

    /// Adds a ghost and drops the oldest while the ghosts exceed `capacity`.
    mutating func append(_ fingerprint: UInt64, cost: Int, capacity: QueueShare) {
        index[fingerprint] = sequenceOfFirst + ring.count - start
        ring.append((fingerprint, cost))
        totalCost += cost
        while capacity.isExceeded(cost: totalCost, count: count), count > 0 { dropOldest() }
        compact()
    }

    /// Forgets a ghost (it has come back); its place in the ring expires lazily.
    mutating func remove(_ fingerprint: UInt64) { index[fingerprint] = nil }

    mutating func removeAll() { self = GhostQueue() }

    private mutating func dropOldest() {
        let oldest = ring[start]
        if index[oldest.fingerprint] == sequenceOfFirst { index[oldest.fingerprint] = nil }
        totalCost -= oldest.cost
        start += 1
        sequenceOfFirst += 1
    }

    /// Reclaims the dropped prefix once it is half the ring, keeping memory bounded.
    private mutating func compact() {
        guard start > 64, start * 2 > ring.count else { return }
        ring.removeFirst(start)
        start = 0
    }
}
