/// The SplitMix64/Murmur3 64-bit finaliser: spreads nearby values apart. Used
/// for key fingerprints, sketch rows and the seed generator.
@inlinable @inline(__always)
func mix(_ value: UInt64) -> UInt64 {
    var z = value
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}
