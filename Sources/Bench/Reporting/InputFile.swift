import Crypto
import Foundation
import ImagePipeline

/// A file a run read, as its results record it: `merge` refuses shards that read
/// different contents under one name (a trace changed between shards).
public struct InputFile: Codable, Sendable, Equatable {
    /// The file's name (the folders it is in are the user's, not the results').
    public var path: String
    public var bytes: Int
    /// SHA-256 of the contents, in hex.
    public var sha256: String

    public init(path: String, bytes: Int, sha256: String) {
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// The regular files among `paths`, hashed in 1 MiB reads; folders, pipes, devices and
    /// unreadable paths are left out (a pipe's contents are the run's to read, once; the run
    /// itself reports what it could not read).
    public static func describe(_ paths: [String]) -> [InputFile] {
        paths.compactMap { path in
            guard isRegularFile(path), let handle = FileHandle(forReadingAtPath: path) else { return nil }
            defer { try? handle.close() }
            var hash = SHA256()
            var bytes = 0
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hash.update(data: chunk)
                bytes += chunk.count
            }
            return InputFile(path: PathNames.withoutFolders(path), bytes: bytes, sha256: hash.finalize().map { String(format: "%02x", $0) }.joined())
        }
    }
}

/// Whether `path`, symbolic links followed (a linked trace, `/dev/stdin` redirected from a
/// file), is a regular file.
private func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
}

/// Lowers the calling thread to the least share of the cores (nice 19; on Linux a nice value
/// is the thread's own, and 0 names the calling one): the hash is wanted only when the run
/// ends, and a run that reads its trace as it goes keeps a reader and a simulation busy, which
/// on two cores a third thread of equal weight would slow by a third.
private func yieldToTheRun() {
    #if os(Linux)
    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
    #endif
}

extension InputFile {
    /// `describe(paths)` worked out on a thread of its own from the moment the paths are
    /// known, so hashing a large trace overlaps the run that reads it (on the 10 M-request
    /// oracleGeneral file the hash took a tenth of a one-policy run).
    public final class Pending: Sendable {
        private let described = SharedLocked<[InputFile]>([])
        private let done = DispatchSemaphore(value: 0)

        public init(_ paths: [String]) {
            Thread { [described, done] in
                yieldToTheRun()
                let files = InputFile.describe(paths)
                described.withLock { $0 = files }
                done.signal()
            }.start()
        }

        /// The files, once hashed (waits for the thread; each caller hands the signal on).
        public var files: [InputFile] {
            done.wait()
            defer { done.signal() }
            return described.withLock { $0 }
        }
    }
}
