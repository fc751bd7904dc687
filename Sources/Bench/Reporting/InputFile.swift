import Crypto
import Foundation

/// A file a run read, as its results record it: `merge` refuses shards that read
/// different contents under one name (a trace changed between shards).
public struct InputFile: Codable, Sendable, Equatable {
    /// The path as the command line gave it.
    public var path: String
    public var bytes: Int
    /// SHA-256 of the contents, in hex.
    public var sha256: String

    public init(path: String, bytes: Int, sha256: String) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// The regular files among `paths`, hashed in 1 MiB reads; folders and unreadable
    /// paths are left out (the run itself reports what it could not read).
    public static func describe(_ paths: [String]) -> [InputFile] {
        paths.compactMap { path in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                  let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            var hash = SHA256()
            var bytes = 0
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hash.update(data: chunk)
                bytes += chunk.count
            }
            return InputFile(path: path, bytes: bytes, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }
}
