/// Keys that have a stable 64-bit hash. Unlike `hashValue`, which Swift seeds
/// per process, a fingerprint is the same in every run, so the live cache and
/// the simulator (which interns the same key strings) make the same decisions
/// in ghost queues and frequency sketches.
public protocol CacheFingerprintable {
    var cacheFingerprint: UInt64 { get }
}

extension String: CacheFingerprintable {
    /// FNV-1a over the UTF-8 bytes, then a finaliser to spread the bits.
    public var cacheFingerprint: UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return mix(hash)
    }
}

extension Int: CacheFingerprintable {
    public var cacheFingerprint: UInt64 { mix(UInt64(bitPattern: Int64(self))) }
}

extension Int32: CacheFingerprintable {
    public var cacheFingerprint: UInt64 { mix(UInt64(UInt32(bitPattern: self))) }
}
