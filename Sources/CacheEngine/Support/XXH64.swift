/// XXH64 (Yann Collet's xxHash, 64-bit), the one implementation of it here: the disk
/// tier's checksums (several GB/s, so verifying every read costs little next to the
/// read) and libCacheSim's hash of an object id (its W-TinyLFU's counting filter).
package enum XXH64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var hash: UInt64
        @inline(__always) func load64(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        @inline(__always) func load32(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        @inline(__always) func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
            rotate(accumulator &+ input &* prime2, 31) &* prime1
        }
        @inline(__always) func merge(_ hash: UInt64, _ accumulator: UInt64) -> UInt64 {
            (hash ^ round(0, accumulator)) &* prime1 &+ prime4
        }
        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2, v2 = seed &+ prime2, v3 = seed, v4 = seed &- prime1
            while offset + 32 <= count {
                v1 = round(v1, load64(offset))
                v2 = round(v2, load64(offset + 8))
                v3 = round(v3, load64(offset + 16))
                v4 = round(v4, load64(offset + 24))
                offset += 32
            }
            hash = rotate(v1, 1) &+ rotate(v2, 7) &+ rotate(v3, 12) &+ rotate(v4, 18)
            hash = merge(merge(merge(merge(hash, v1), v2), v3), v4)
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(count)
        while offset + 8 <= count {
            hash = rotate(hash ^ round(0, load64(offset)), 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            hash = rotate(hash ^ (load32(offset) &* prime1), 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash = rotate(hash ^ (UInt64(bytes[offset]) &* prime5), 11) &* prime1
            offset += 1
        }
        return avalanche(hash)
    }

    /// The hash of one value's 8 little-endian bytes, as `hash(_:seed:)` gives it, by the
    /// short path alone (one lane, then the avalanche): what libCacheSim applies to an object id.
    @inline(__always)
    package static func hash(_ value: UInt64, seed: UInt64) -> UInt64 {
        let hash = seed &+ prime5 &+ 8
        return avalanche(rotate(hash ^ (rotate(value &* prime2, 31) &* prime1), 27) &* prime1 &+ prime4)
    }

    @inline(__always)
    private static func avalanche(_ value: UInt64) -> UInt64 {
        var hash = value
        hash ^= hash >> 33
        hash &*= prime2
        hash ^= hash >> 29
        hash &*= prime3
        return hash ^ (hash >> 32)
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 { value << bits | value >> (64 - bits) }
}
