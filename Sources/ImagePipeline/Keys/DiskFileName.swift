import Crypto

/// Disk file names derived from cache keys: the SHA-256 of the key in
/// lower-case hex. Fixed length (64), safe on every file system, and
/// collision-free in practice, whatever the key looks like.
public enum DiskFileName {
    private static let hex = Array("0123456789abcdef".utf8)

    public static func of(_ key: String) -> String {
        var hasher = SHA256()
        var key = key
        key.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        let digest = hasher.finalize()
        return String(unsafeUninitializedCapacity: 64) { buffer in
            var index = 0
            for byte in digest {
                buffer[index] = hex[Int(byte >> 4)]
                buffer[index + 1] = hex[Int(byte & 0xF)]
                index += 2
            }
            return 64
        }
    }

    /// Whether `name` looks like one of these names.
    public static func isValid(_ name: some StringProtocol) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { hex.contains($0) }
    }
}
