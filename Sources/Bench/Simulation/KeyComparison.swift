import Workloads
import ImagePipeline
import CacheSimulation

/// How a key strategy fares on a workload: hits and what they showed, how many
/// keys it makes, how many could not be file names, and the URLs it confuses.
public struct KeyComparisonRow: Codable, Sendable {
    public var trace: String
    public var keyStrategy: String
    public var requests: Int
    public var hitRatio: Double
    public var combinedHitRatio: Double
    public var wrongImages: Int
    public var staleImages: Int
    /// Distinct keys the strategy makes from the workload's URLs (without processing options).
    public var distinctKeys: Int
    public var distinctURLs: Int
    /// Of those keys, how many could not be used as a file name as they are.
    public var unusableFileNames: Int
    /// The keys that name the most-requested different pictures.
    public var worstCollisions: [Collision]

    public var wrongImageRate: Double { requests == 0 ? 0 : Double(wrongImages) / Double(requests) }

    public struct Collision: Codable, Sendable {
        public var key: String
        /// Distinct pictures behind this key, and how often the key was asked for.
        public var pictures: Int
        public var requests: Int
        /// The two most-requested URLs showing different pictures.
        public var first: String
        public var second: String
    }
}

public enum KeyComparison {
    /// Each strategy on each workload, under one simulated configuration.
    public static func run(
        _ workloads: [RecordedWorkload], strategies: [CacheKeyStrategy], configuration: SimulationMatrix,
        examples: Int = 3, progress: ProgressLine = ProgressLine()
    ) -> [KeyComparisonRow] {
        var matrix = configuration
        matrix.strategies = strategies
        matrix.bounds = false
        let simulated = matrix.run(workloads, progress: progress)
        var rows: [KeyComparisonRow] = []
        for workload in workloads {
            for strategy in strategies {
                guard let run = simulated.first(where: { $0.trace == workload.name && $0.keyStrategy == strategy.description }) else { continue }
                rows.append(row(workload, strategy, run.result, examples: examples))
            }
        }
        return rows
    }

    static func row(_ workload: RecordedWorkload, _ strategy: CacheKeyStrategy, _ result: SimulationResult, examples: Int) -> KeyComparisonRow {
        let base = strategy.withoutProcessing
        var requestsPerURL = [Int](repeating: 0, count: workload.urls.count)
        var pictureOfURL = [Int32](repeating: -1, count: workload.urls.count)
        for request in workload.requests {
            requestsPerURL[Int(request.url)] += 1
            if pictureOfURL[Int(request.url)] < 0 { pictureOfURL[Int(request.url)] = request.content }
        }
        var urlsOfKey: [String: [Int]] = [:]
        for (index, url) in workload.urls.enumerated() where requestsPerURL[index] > 0 {
            urlsOfKey[base.key(for: url), default: []].append(index)
        }
        var collisions: [KeyComparisonRow.Collision] = []
        for (key, urls) in urlsOfKey where urls.count > 1 {
            let pictures = Set(urls.map { pictureOfURL[$0] })
            guard pictures.count > 1 else { continue }
            let ranked = urls.sorted { (requestsPerURL[$0], workload.urls[$1]) > (requestsPerURL[$1], workload.urls[$0]) }
            guard let second = ranked.dropFirst().first(where: { pictureOfURL[$0] != pictureOfURL[ranked[0]] }) else { continue }
            collisions.append(.init(
                key: URLCredentials.removed(from: key), pictures: pictures.count, requests: urls.reduce(0) { $0 + requestsPerURL[$1] },
                first: URLCredentials.removed(from: workload.urls[ranked[0]]), second: URLCredentials.removed(from: workload.urls[second])))
        }
        collisions.sort { ($0.requests, $1.key) > ($1.requests, $0.key) }
        return KeyComparisonRow(
            trace: workload.name, keyStrategy: strategy.description, requests: result.requests,
            hitRatio: result.hitRatio, combinedHitRatio: result.combinedHitRatio,
            wrongImages: result.wrongImages, staleImages: result.staleImages,
            distinctKeys: urlsOfKey.count, distinctURLs: requestsPerURL.filter { $0 > 0 }.count,
            unusableFileNames: urlsOfKey.keys.filter { !CacheKeyStrategy.isUsableAsFileName($0) }.count,
            worstCollisions: Array(collisions.prefix(examples)))
    }
}
