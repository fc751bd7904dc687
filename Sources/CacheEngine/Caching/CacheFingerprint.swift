/// Keys that have a stable 64-bit hash. Unlike `hashValue`, which Swift seeds
/// per process, a fingerprint is the same in every run, so the live cache and
/// the simulator (which interns the same key strings) make the same decisions
/// in ghost queues and frequency sketches.
public protocol CacheFingerprintable {
    var cacheFingerprint: UInt64 { get }
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

extension Int: CacheFingerprintable {
    public var cacheFingerprint: UInt64 { mix(UInt64(bitPattern: Int64(self))) }
}

extension Int32: CacheFingerprintable {
    public var cacheFingerprint: UInt64 { mix(UInt64(UInt32(bitPattern: self))) }
}
