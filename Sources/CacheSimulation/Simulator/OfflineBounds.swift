import ImagePipeline
/// Offline references a policy's hit ratio is judged against.
public enum OfflineBounds {
    /// Belady's MIN: on a miss, if the cache is full, evict the entry whose next
    /// use is furthest away, or skip caching the new entry if it is itself used
    /// furthest. Optimal for equal sizes under a count limit; for variable sizes
    /// it is a strong heuristic, not a bound (see `spaceTimeBound`). Entries over
    /// the per-entry limit are never cached, as in the online policies.
    public static func belady(_ trace: SimulationTrace, limits: CacheLimits) -> SimulationResult {
        let next = trace.nextUses()
        let never = Int32(trace.count)
        // Min-heap on the negated next use: its first slot is used furthest away.
        var heap = IndexedHeap()
        var cost = [Int](repeating: 0, count: trace.keyCount)
        var totalCost = 0
        var result = SimulationResult(policy: "Belady")
        for index in 0..<trace.count {
            let key = trace.keys[index], size = trace.sizes[index]
            result.bytesRequested += size
            if heap.contains(key) {
                result.hits += 1
                result.byteHits += Double(size)
                result.statistics.hits += 1
                heap.update(key, priority: -Double(next[index]), tieBreaker: 0)
                continue
            }
            result.statistics.misses += 1
            let entryCost = trace.costs[index]
            guard next[index] != never, limits.admits(cost: entryCost) else { continue }
            while limits.isOver(cost: totalCost, count: heap.count, adding: entryCost),
                  let furthest = heap.first, -heap.priority(of: furthest) > Double(next[index]) {
                heap.remove(furthest)
                totalCost -= cost[Int(furthest)]
                result.statistics.evictions += 1
            }
            guard !limits.isOver(cost: totalCost, count: heap.count, adding: entryCost) else { continue }
            heap.insert(key, priority: -Double(next[index]), tieBreaker: 0)
            cost[Int(key)] = entryCost
            totalCost += entryCost
            result.statistics.insertions += 1
        }
        result.requests = trace.count
        return result
    }

    /// An upper bound on hits for variable sizes: the PFOO-L construction of
    /// Berger, Beckmann and Harchol-Balter (SIGMETRICS 2018). Each reuse
    /// interval (a request to the next request of the same key) is a possible
    /// hit that occupies cost × length of the cache's space-time budget
    /// (cost limit × trace length). Admitting intervals greedily by the best
    /// gain per space-time, fractionally at the end, gives a value no caching
    /// policy can beat. Objects and bytes rank intervals differently, so the
    /// two bounds are computed separately. The count limit is relaxed.
    public static func spaceTimeBound(_ trace: SimulationTrace, limits: CacheLimits) -> (objects: SimulationResult, bytes: SimulationResult) {
        let next = trace.nextUses()
        var spaceTime: [Double] = []
        var gainBytes: [Double] = []
        for index in 0..<trace.count where Int(next[index]) < trace.count {
            let entryCost = trace.costs[index]
            guard limits.admits(cost: entryCost) else { continue }
            spaceTime.append(Double(max(entryCost, 1)) * Double(Int(next[index]) - index))
            gainBytes.append(Double(trace.sizes[Int(next[index])]))
        }
        let budget = Double(limits.costLimit) * Double(trace.count)
        let bytesRequested = trace.sizes.reduce(0, +)

        func greedy(_ name: String, gain: (Int) -> Double) -> SimulationResult {
            let order = spaceTime.indices.sorted { gain($0) / spaceTime[$0] > gain($1) / spaceTime[$1] }
            var result = SimulationResult(policy: name)
            var remaining = budget
            for interval in order {
                let fraction = min(1, remaining / spaceTime[interval])
                guard fraction > 0 else { break }
                result.hits += fraction
                result.byteHits += fraction * gainBytes[interval]
                remaining -= fraction * spaceTime[interval]
            }
            result.requests = trace.count
            result.bytesRequested = bytesRequested
            return result
        }
        return (greedy("PFOO-L objects") { _ in 1 }, greedy("PFOO-L bytes") { gainBytes[$0] })
    }
}
