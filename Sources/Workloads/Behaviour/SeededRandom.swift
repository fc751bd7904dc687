import Foundation
import ImagePipeline

/// The models' random source: `SplitMix64` with independent streams per seed,
/// and the distributions behaviour draws from.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var generator: SplitMix64

    public init(seed: UInt64, stream: UInt64 = 0) {
        generator = SplitMix64(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ (stream &+ 0xD1B5_4A32_D192_ED03))
        _ = generator.next()
    }

    public mutating func next() -> UInt64 { generator.next() }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { generator.nextUnitInterval() }

    public mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// Uniform in `range` (integers).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// Log-normal around `median`: most values near it, a long tail above.
    public mutating func logNormal(median: Double, sigma: Double) -> Double {
        let u1 = unit() + 0x1.0p-54, u2 = unit()
        let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        return median * exp(sigma * normal)
    }

    /// A rank in 0..<count, rank 0 the most popular: P(k) ∝ 1/(k+1)^alpha.
    public mutating func zipfRank(count: Int, alpha: Double) -> Int {
        precondition(count > 0)
        // Inverse transform on the continuous approximation; exact enough for behaviour.
        let u = unit()
        if abs(alpha - 1) < 1e-9 {
            return min(count - 1, Int(exp(u * log(Double(count) + 1))) - 1)
        }
        let top = pow(Double(count) + 1, 1 - alpha)
        let x = pow(u * (top - 1) + 1, 1 / (1 - alpha))
        return min(count - 1, max(0, Int(x) - 1))
    }

    /// One of `weights`' indices, in proportion to the weights.
    public mutating func weighted(_ weights: [Double]) -> Int {
        var pick = unit() * weights.reduce(0, +)
        for (index, weight) in weights.enumerated() {
            pick -= weight
            if pick < 0 { return index }
        }
        return weights.count - 1
    }
}
