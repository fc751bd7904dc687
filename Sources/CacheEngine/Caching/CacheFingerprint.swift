/// Keys that have a stable 64-bit hash. Unlike `hashValue`, which Swift seeds
/// per process, a fingerprint is the same in every run, so the live cache and
/// the simulator (which interns the same key strings) make the same decisions
/// in ghost queues and frequency sketches.
public protocol CacheFingerprintable {
    var cacheFingerprint: UInt64 { get }
    /// Where `MemoryCache`'s index files the key, given the cache's own random seed: the key's
    /// `hashValue` (Swift's SipHash, seeded per process) unless its type has a cheaper hash
    /// that spreads as well.
    func cacheIndexHash(seed: UInt64) -> Int
}

extension CacheFingerprintable where Self: Hashable {
    @inlinable
    public func cacheIndexHash(seed: UInt64) -> Int { hashValue }
}

extension String: CacheFingerprintable {
    /// FNV-1a over the UTF-8 bytes, then a finaliser to spread the bits.
    public var cacheFingerprint: UInt64 { Self.cacheFingerprint(utf8: utf8) }

    /// The fingerprint of the string with these UTF-8 bytes, without building it.
    @inlinable
    public static func cacheFingerprint(utf8 bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return mix(hash)
    }
}

// Integer keys are ids an app assigns (interned URLs, row ids), filed by the fingerprint's
// finaliser over the key and the cache's seed: SipHash took a tenth of a hit's time
// (BENCHMARKS.md, "Integer keys filed by a finaliser"). Unlike SipHash it is no defence
// against keys chosen to collide by someone who has learnt the seed.
extension Int: CacheFingerprintable {
    @inlinable
    public var cacheFingerprint: UInt64 { mix(UInt64(bitPattern: Int64(self))) }

    @inlinable
    public func cacheIndexHash(seed: UInt64) -> Int { Int(truncatingIfNeeded: mix(UInt64(bitPattern: Int64(self)) ^ seed)) }
}

extension Int32: CacheFingerprintable {
    @inlinable
    public var cacheFingerprint: UInt64 { mix(UInt64(UInt32(bitPattern: self))) }

    @inlinable
    public func cacheIndexHash(seed: UInt64) -> Int { Int(truncatingIfNeeded: mix(UInt64(UInt32(bitPattern: self)) ^ seed)) }
}
