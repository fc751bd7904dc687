/// A bounded FIFO of fingerprints of recently evicted keys, with O(1)
/// membership. Bounded by the total cost and the number of the entries it
/// remembers, so it covers as much history as the queue it feeds could hold
/// under either limit. Stores keys, not values: 24 bytes per ghost plus the index.
/// A ghost that comes back frees its cost and count at once (as libCacheSim's
/// ghost FIFOs do); its place in the ring is skipped when the ring reaches it.
struct GhostQueue {
    private var ring: [(fingerprint: UInt64, cost: Int, isLive: Bool)] = []
    private var sequenceOfFirst = 0
    private var start = 0
    private var totalCost = 0
    private(set) var count = 0
    /// Fingerprint → sequence number of its newest place in the ring.
    private var index = FingerprintMap()

    func contains(_ fingerprint: UInt64) -> Bool { index.contains(fingerprint) }

    /// Starts loading where a lookup of `fingerprint` begins.
    func prefetch(_ fingerprint: UInt64) { index.prefetch(fingerprint) }

    /// Adds a ghost and drops the oldest while the ghosts exceed `capacity`.
    mutating func append(_ fingerprint: UInt64, cost: Int, capacity: QueueShare) {
        // One probe of the index: a ghost already there gives up its older place.
        if let older = index.updateValue(sequenceOfFirst + ring.count - start, for: fingerprint) { forget(older) }
        ring.append((fingerprint, cost, true))
        totalCost += cost
        count += 1
        while capacity.isExceeded(cost: totalCost, count: count), count > 0 { dropOldest() }
        compact()
    }

    /// Forgets a ghost (it has come back); whether it was one.
    @discardableResult
    mutating func remove(_ fingerprint: UInt64) -> Bool {
        guard let sequence = index.removeValue(for: fingerprint) else { return false }
        forget(sequence)
        return true
    }

    /// Marks the ring's place `sequence` dead and gives back its cost and count.
    private mutating func forget(_ sequence: Int) {
        let position = sequence - sequenceOfFirst + start
        totalCost -= ring[position].cost
        count -= 1
        ring[position].isLive = false
    }

    mutating func removeAll() { self = GhostQueue() }

    private mutating func dropOldest() {
        while start < ring.count {
            let oldest = ring[start]
            start += 1
            sequenceOfFirst += 1
            if oldest.isLive {
                index[oldest.fingerprint] = nil
                totalCost -= oldest.cost
                count -= 1
                return
            }
        }
    }

    /// Reclaims the dropped prefix once it is half the ring, keeping memory bounded.
    private mutating func compact() {
        guard start > 64, start * 2 > ring.count else { return }
        ring.removeFirst(start)
        start = 0
    }
}
