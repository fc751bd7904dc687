import ImagePipeline

/// What a trace holds, in the figures `datasets/README.md` lists for each dataset.
public struct TraceStatistics: Sendable, Equatable, Codable {
    public var sessions = 0
    public var imageRequests = 0
    public var apiRequests = 0
    public var cancels = 0
    public var memoryWarnings = 0
    public var relaunches = 0
    public var offlinePeriods = 0
    public var invalidations = 0
    public var uniqueURLs = 0
    public var uniqueContents = 0
    /// Encoded bytes over all requests, and over each distinct URL once.
    public var requestedBytes = 0
    public var uniqueBytes = 0
    /// Share of requests for a URL the same user asked for before.
    public var reuseRatio = 0.0
    /// Reuse (stack) distance percentiles: distinct URLs asked for between two requests for one URL.
    public var reuseDistanceP50 = 0
    public var reuseDistanceP90 = 0
    public var reuseDistanceP99 = 0
    /// Requests whose key, under each strategy, last named another picture on the same device:
    /// a cache keyed that way would show the wrong image if it still held the entry.
    public var wrongKeyHazards: [String: Int] = [:]

    public static let hazardStrategies: [CacheKeyStrategy] = CacheKeyStrategy.Base.allCases.map { CacheKeyStrategy($0) }

    /// Reads the trace once, streaming.
    public static func of(path: String, allowsEmpty: Bool = false) throws(TraceError) -> TraceStatistics {
        var reader = try TraceReader(path: path, allowsEmpty: allowsEmpty)
        var collector = Collector()
        while let event = try reader.next() { collector.add(event) }
        return collector.finish()
    }

    struct Collector {
        var statistics = TraceStatistics()
        var urls: [ByteExactString: Int32] = [:]
        var contents: Set<UInt64> = []
        /// Per user: when each URL (by id) was last requested, in request order.
        var lastUse: [Int32: Int] = [:]
        var marks = FenwickTree()
        var distances: [Int] = []
        var reuses = 0
        var keyContents = Array(repeating: [String: UInt64](), count: TraceStatistics.hazardStrategies.count)

        mutating func add(_ event: TraceEvent) {
            switch event.kind {
            case .session:
                statistics.sessions += 1
                lastUse = [:]
                marks = FenwickTree()
                for index in keyContents.indices { keyContents[index] = [:] }
            case .api: statistics.apiRequests += 1
            case .cancel: statistics.cancels += 1
            case .memoryWarning: statistics.memoryWarnings += 1
            case .relaunch: statistics.relaunches += 1
            case .offline(let offline): if offline { statistics.offlinePeriods += 1 }
            case .invalidate(let url):
                statistics.invalidations += 1
                for (index, strategy) in TraceStatistics.hazardStrategies.enumerated() { keyContents[index][strategy.key(for: url)] = nil }
            case .image(let image):
                add(image)
            }
        }

        private mutating func add(_ image: ImageRequestEvent) {
            statistics.imageRequests += 1
            statistics.requestedBytes += image.bytes
            let id: Int32
            if let known = urls[ByteExactString(image.url)] {
                id = known
            } else {
                id = Int32(urls.count)
                urls[ByteExactString(image.url)] = id
                statistics.uniqueBytes += image.bytes
            }
            contents.insert(image.content)
            let now = statistics.imageRequests
            if let last = lastUse[id] {
                reuses += 1
                distances.append(marks.sum(after: last))
                marks.add(-1, at: last)
            }
            marks.add(1, at: now)
            lastUse[id] = now
            for (index, strategy) in TraceStatistics.hazardStrategies.enumerated() {
                let key = strategy.key(for: image.url)
                if let previous = keyContents[index][key], previous != image.content {
                    statistics.wrongKeyHazards[strategy.description, default: 0] += 1
                }
                keyContents[index][key] = image.content
            }
        }

        mutating func finish() -> TraceStatistics {
            statistics.uniqueURLs = urls.count
            statistics.uniqueContents = contents.count
            statistics.reuseRatio = statistics.imageRequests == 0 ? 0 : Double(reuses) / Double(statistics.imageRequests)
            distances.sort()
            func percentile(_ p: Double) -> Int { distances.isEmpty ? 0 : distances[min(distances.count - 1, Int(Double(distances.count) * p))] }
            statistics.reuseDistanceP50 = percentile(0.5)
            statistics.reuseDistanceP90 = percentile(0.9)
            statistics.reuseDistanceP99 = percentile(0.99)
            for strategy in TraceStatistics.hazardStrategies where statistics.wrongKeyHazards[strategy.description] == nil {
                statistics.wrongKeyHazards[strategy.description] = 0
            }
            return statistics
        }
    }
}

/// Prefix sums over request positions, growing as requests arrive: counts
/// the distinct URLs last used after a position in O(log n).
struct FenwickTree {
    private var tree = [0, 0]
    private var points = [0, 0]
    private var total = 0

    mutating func add(_ delta: Int, at position: Int) {
        while position >= tree.count { grow() }
        points[position] += delta
        total += delta
        var index = position
        while index < tree.count {
            tree[index] += delta
            index += index & -index
        }
    }

    /// Sum of the values at positions after `position`.
    func sum(after position: Int) -> Int {
        var index = min(position, tree.count - 1), prefix = 0
        while index > 0 {
            prefix += tree[index]
            index -= index & -index
        }
        return total - prefix
    }

    /// Doubles the capacity and rebuilds the tree from the point values in O(n).
    private mutating func grow() {
        points += Array(repeating: 0, count: points.count)
        tree = points
        for index in 1..<tree.count {
            let parent = index + (index & -index)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }
}
