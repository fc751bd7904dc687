import ImagePipeline

/// LRU's hit ratios at many sizes from one pass over a spatial sample (SHARDS):
/// a request hits at capacity C when the bytes of the distinct keys used since its
/// key's last use, scaled up by 1/rate, plus its own cost fit in C. One Fenwick tree
/// per capacity holds, at each key's last use, its cost, for the keys that capacity
/// admits (the per-entry cap) and that were stored there, so a miss the app did not
/// store (offline, cancelled) gives no recency, as in the live cache.
/// On the whole trace (rate 1) it gives the simulator's LRU figures; relaunches
/// empty every tree, invalidations take keys out, warnings are not modelled (the
/// sweep runs without them).
public enum SampledLRU {
    public struct Point: Sendable, Equatable {
        public var hitRatio: Double
        public var byteHitRatio: Double
    }

    /// `capacities` in full-trace bytes (cost units); hit ratios corrected for the draw
    /// as `adjustment` says.
    public static func curve(
        _ sample: SpatialSample, capacities: [Int], maxEntryFraction: Double, adjustment: SampleAdjustment = .hitModel,
        honoursInvalidations: Bool = true
    ) -> [Point] {
        let trace = sample.trace, count = trace.count
        let limits = capacities.map { CacheLimits(costLimit: $0, maxEntryFraction: maxEntryFraction) }
        var trees = limits.map { _ in FenwickTree(count: count) }
        // Per capacity: where each key's cost sits in its tree (-1: not there), and that cost.
        var position = limits.map { _ in [Int](repeating: -1, count: trace.keyCount) }
        var held = limits.map { _ in [Int](repeating: 0, count: trace.keyCount) }
        var hits = [Int](repeating: 0, count: limits.count), byteHits = hits
        var bytesRequested = 0, nextEvent = 0
        func drop(_ key: Int, from tree: Int) {
            guard position[tree][key] >= 0 else { return }
            trees[tree].add(-held[tree][key], at: position[tree][key])
            position[tree][key] = -1
        }
        for index in 0..<count {
            while nextEvent < trace.events.count, trace.events[nextEvent].beforeRequest <= index {
                switch trace.events[nextEvent].kind {
                case .relaunch, .newDevice:
                    for tree in limits.indices { for key in 0..<trace.keyCount { drop(key, from: tree) } }
                case .invalidate(let memory, _) where honoursInvalidations:
                    for key in trace.invalidatedMemoryKeys[memory] { for tree in limits.indices { drop(Int(key), from: tree) } }
                case .invalidate, .memoryWarning: break
                }
                nextEvent += 1
            }
            let key = Int(trace.keys[index]), cost = trace.costs[index], size = trace.sizes[index]
            let stores = trace.hasDetails ? trace.outcomes[index] == .store : true
            bytesRequested += size
            for tree in limits.indices {
                let admitted = limits[tree].admits(cost: cost)
                var hit = false
                if admitted, position[tree][key] >= 0 {
                    let between = trees[tree].sum(upTo: index) - trees[tree].sum(upTo: position[tree][key] + 1)
                    hit = Double(between) / sample.rate + Double(cost) <= Double(limits[tree].costLimit)
                }
                if hit {
                    hits[tree] += 1
                    byteHits[tree] += size
                }
                // A miss that stores nothing leaves the key where it was: its last stored use
                // still pushed older keys out, and it stays older than everything since.
                if hit || (stores && admitted) {
                    drop(key, from: tree)
                    trees[tree].add(cost, at: index)
                    position[tree][key] = index
                    held[tree][key] = cost
                }
            }
        }
        return limits.indices.map { tree in
            Point(
                hitRatio: sample.adjustedHitRatio(hits: Double(hits[tree]), limits: limits[tree], adjustment: adjustment),
                byteHitRatio: bytesRequested == 0 ? 0 : Double(byteHits[tree]) / Double(bytesRequested))
        }
    }
}

/// Prefix sums with point updates in O(log n) (a binary indexed tree).
struct FenwickTree {
    private var sums: [Int]

    init(count: Int) { sums = Array(repeating: 0, count: count + 1) }

    mutating func add(_ value: Int, at index: Int) {
        var position = index + 1
        while position < sums.count {
            sums[position] &+= value
            position += position & -position
        }
    }

    /// The sum of the values at 0..<end.
    func sum(upTo end: Int) -> Int {
        var total = 0, position = end
        while position > 0 {
            total &+= sums[position]
            position -= position & -position
        }
        return total
    }
}
