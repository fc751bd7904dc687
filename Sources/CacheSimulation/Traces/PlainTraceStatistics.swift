/// What a plain trace (libCacheSim's formats, a CSV or TSV by its columns, `.icbt`)
/// holds: requests over interned keys with sizes and times, nothing of images.
public struct PlainTraceStatistics: Sendable, Equatable, Codable {
    public var requests = 0
    public var keys = 0
    /// Bytes over all requests, and over each key once (at its largest size): what a
    /// cache needs to never evict.
    public var requestedBytes = 0
    public var uniqueBytes = 0
    /// Share of requests for a key asked for before.
    public var reuseRatio = 0.0
    /// Share of keys asked for only once.
    public var oneHitWonderRatio = 0.0
    /// Reuse (stack) distance percentiles: distinct keys asked for between two requests for one key.
    public var reuseDistanceP50 = 0
    public var reuseDistanceP90 = 0
    public var reuseDistanceP99 = 0
    /// Request sizes.
    public var medianSize = 0
    public var largestSize = 0
    /// Share of requests for the most requested 1% of keys (at least one key).
    public var topOnePercentShare = 0.0
    public var durationSeconds = 0.0
}

extension SimulationTrace {
    /// One pass over the requests, with a Fenwick tree for the reuse distances.
    public var plainStatistics: PlainTraceStatistics {
        var statistics = PlainTraceStatistics()
        statistics.requests = count
        guard count > 0 else { return statistics }
        var last = [Int](repeating: -1, count: keyCount), requestsOfKey = [Int](repeating: 0, count: keyCount)
        var largest = [Int](repeating: 0, count: keyCount)
        var marks = FenwickTree(count: count)
        var distances: [Int] = []
        for index in 0..<count {
            let key = Int(keys[index])
            statistics.requestedBytes += sizes[index]
            largest[key] = Swift.max(largest[key], sizes[index])
            requestsOfKey[key] += 1
            if last[key] >= 0 {
                distances.append(marks.sum(upTo: index) - marks.sum(upTo: last[key] + 1))
                marks.add(-1, at: last[key])
            }
            marks.add(1, at: index)
            last[key] = index
        }
        let used = requestsOfKey.filter { $0 > 0 }
        statistics.keys = used.count
        statistics.uniqueBytes = largest.reduce(0, +)
        statistics.reuseRatio = Double(distances.count) / Double(count)
        statistics.oneHitWonderRatio = Double(used.filter { $0 == 1 }.count) / Double(Swift.max(used.count, 1))
        distances.sort()
        func percentile(_ share: Double) -> Int {
            distances.isEmpty ? 0 : distances[Swift.min(Int(Double(distances.count) * share), distances.count - 1)]
        }
        statistics.reuseDistanceP50 = percentile(0.5)
        statistics.reuseDistanceP90 = percentile(0.9)
        statistics.reuseDistanceP99 = percentile(0.99)
        let sortedSizes = sizes.sorted()
        statistics.medianSize = sortedSizes[sortedSizes.count / 2]
        statistics.largestSize = sortedSizes[sortedSizes.count - 1]
        let top = used.sorted(by: >).prefix(Swift.max(used.count / 100, 1)).reduce(0, +)
        statistics.topOnePercentShare = Double(top) / Double(count)
        statistics.durationSeconds = Double((times.max() ?? 0) - (times.min() ?? 0)) / 1e9
        return statistics
    }
}
