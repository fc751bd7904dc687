/// XXH64 (Yann Collet's xxHash, 64-bit) of one 8-byte little-endian value, the
/// hash libCacheSim applies to an object id. Only the short-input path is
/// needed: an 8-byte input is one lane, then the avalanche.
func xxHash64(_ value: UInt64, seed: UInt64) -> UInt64 {
    let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    let prime5: UInt64 = 0x27D4_EB2F_1656_67C5
    var hash = seed &+ prime5 &+ 8
    let lane = (value &* prime2).rotatedLeft(by: 31) &* prime1
    hash ^= lane
    hash = hash.rotatedLeft(by: 27) &* prime1 &+ prime4
    hash ^= hash >> 33
    hash &*= prime2
    hash ^= hash >> 29
    hash &*= prime3
    hash ^= hash >> 32
    return hash
}

extension UInt64 {
    @inline(__always)
    func rotatedLeft(by bits: UInt64) -> UInt64 { (self << bits) | (self >> (64 - bits)) }
}
