extension MemoryCache where Key == String {
    /// The value stored under the string whose UTF-8 bytes are `utf8`, found without
    /// building that string (the image pipeline's memory hit writes its key into a
    /// stack buffer). An ASCII key is hashed as `String` hashes itself — its UTF-8 bytes,
    /// then 0xFF, which holds for every NFC string and ASCII is always NFC (a test holds
    /// the standard library to it); any other key is looked up as a string.
    @inlinable
    public func value(forUTF8 utf8: UnsafeBufferPointer<UInt8>) -> Value? {
        guard utf8.allSatisfy({ $0 < 0x80 }) else { return value(for: String(decoding: utf8, as: UTF8.self)) }
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        hasher.combine(UInt8(0xFF))
        // The matcher runs inside this call, while `utf8` is valid; it is @Sendable because it
        // runs under the cache's lock.
        nonisolated(unsafe) let bytes = utf8
        return value(forHash: hasher.finalize(), fingerprint: String.cacheFingerprint(utf8: bytes)) { key in
            key.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? key.utf8.elementsEqual(bytes)
        }
    }
}
