/// Steele et al.'s SplitMix64: a tiny, well-mixed generator whose sequence
/// depends only on the seed, on every platform and Swift version (unlike
/// `SystemRandomNumberGenerator`). The project's one seeded generator.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return mix(state)
    }

    /// Uniform in [0, 1).
    public mutating func nextUnitInterval() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A non-negative 31-bit seed, the range libvips' noise generators take.
    public mutating func nextInt32() -> Int32 { Int32(truncatingIfNeeded: next() & 0x7FFF_FFFF) }
}
