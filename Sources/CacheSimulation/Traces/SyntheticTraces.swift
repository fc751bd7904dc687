import ImagePipeline
import Foundation

extension SimulationTrace {
    /// An independent-reference trace with Zipf popularity: object `i` (from 0)
    /// is requested with probability proportional to `1 / (i + 1)^alpha`.
    /// Deterministic for a seed. Every object costs and weighs `cost`.
    /// The most requests and objects a synthetic trace holds: it is made whole in memory (about
    /// 30 bytes a request and 16 an object), so these keep one under a few GiB.
    public static let maximumSyntheticRequests = 100_000_000
    public static let maximumSyntheticObjects = 100_000_000

    public static func zipf(
        objects: Int, alpha: Double, requests: Int, seed: UInt64, cost: Int = 1
    ) -> SimulationTrace {
        var trace = SimulationTrace()
        for object in 0..<objects { _ = trace.addKey(fingerprint: object.cacheFingerprint) }
        let distribution = ZipfDistribution(objects: objects, alpha: alpha)
        var generator = SplitMix64(seed: seed)
        trace.reserveCapacity(requests)
        for index in 0..<requests {
            trace.append(key: distribution.sample(&generator), cost: cost, size: cost, time: UInt64(index) * 1_000_000)
        }
        return trace
    }
}

/// Zipf popularity over `objects` ranks, sampled by inverting the CDF.
public struct ZipfDistribution: Sendable {
    /// Probability of each rank.
    public let probabilities: [Double]
    private let cumulative: [Double]

    public init(objects: Int, alpha: Double) {
        let weights = (1...max(objects, 1)).map { 1 / pow(Double($0), alpha) }
        let total = weights.reduce(0, +)
        probabilities = weights.map { $0 / total }
        var sum = 0.0
        cumulative = probabilities.map { sum += $0; return sum }
    }

    func sample(_ generator: inout SplitMix64) -> TraceKey {
        let u = generator.nextUnitInterval()
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < u { low = middle + 1 } else { high = middle }
        }
        return TraceKey(low)
    }
}
