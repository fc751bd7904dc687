#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension MemoryCache where Key == String {
    /// The value stored under the string whose UTF-8 bytes are `utf8`, found without
    /// building that string (the image pipeline's memory hit writes its key into a
    /// stack buffer). An ASCII key is hashed as `String` hashes itself — its UTF-8 bytes,
    /// then 0xFF, which holds for every NFC string and ASCII is always NFC (a test holds
    /// the standard library to it), and a `String` key is filed by its `hashValue`; any
    /// other key is looked up as a string.
    /// `whileLocked`, when given, hears the outcome under the stripe's lock (`value(forHash:…)`).
    @inlinable
    public func value(forUTF8 utf8: UnsafeBufferPointer<UInt8>, whileLocked: (@Sendable (_ hit: Bool) -> Void)? = nil) -> Value? {
        guard isASCII(utf8) else {
            let key = String(decoding: utf8, as: UTF8.self)
            return value(forHash: indexHash(of: key), fingerprint: key.cacheFingerprint, matching: { $0 == key }, whileLocked: whileLocked)
        }
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(utf8))
        hasher.combine(UInt8(0xFF))
        // The matcher runs inside this call, while `utf8` is valid; it is @Sendable because it
        // runs under the cache's lock.
        nonisolated(unsafe) let bytes = utf8
        return value(
            forHash: hasher.finalize(), fingerprint: String.cacheFingerprint(utf8: bytes),
            matching: { key in
                key.utf8.withContiguousStorageIfAvailable { bytesEqual($0, bytes) } ?? key.utf8.elementsEqual(bytes)
            },
            whileLocked: whileLocked)
    }
}

/// Whether every byte is below 0x80, eight at a time.
@inlinable
func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    let raw = UnsafeRawPointer(base)
    var high: UInt64 = 0
    var index = 0
    while index + 8 <= bytes.count {
        high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
        index += 8
    }
    while index < bytes.count {
        high |= UInt64(base[index])
        index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
}

/// Equal bytes, compared by `memcmp` (the generic `elementsEqual` went a byte a step).
@inlinable
func bytesEqual(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let left = a.baseAddress, let right = b.baseAddress else { return true }
    return memcmp(left, right, a.count) == 0
}
