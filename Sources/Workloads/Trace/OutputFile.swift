import Foundation
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// A file written under a hidden name beside its destination and renamed over it once
/// whole: a killed or failed run leaves no file that reads as complete, and an earlier
/// file of that name stays until the new one replaces it. A destination that exists and
/// is not a regular file (`/dev/stdout`, a pipe) is written through as it is.
public struct OutputFile: Sendable {
    /// Where the file ends up.
    public let path: String
    /// Where it is written until `commit()`.
    public let writingPath: String

    public init(_ path: String) {
        self.path = path
        var status = stat()
        if stat(path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            writingPath = path
        } else {
            let url = URL(fileURLWithPath: path)
            writingPath = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial-\(getpid())").path
        }
    }

    /// Renames the whole file into place.
    public func commit() throws(TraceError) {
        guard writingPath != path else { return }
        guard rename(writingPath, path) == 0 else {
            let reason = FileSystemError.reason(errno)
            discard()
            throw .io(file: path, reason: "cannot put the finished file in place (\(reason))")
        }
    }

    /// Removes what was written (after a failure).
    public func discard() {
        guard writingPath != path else { return }
        unlink(writingPath)
    }

    /// Refuses a destination that is one of the files a command reads.
    public static func refuseOverwriting(_ output: String, inputs: [String]) throws(TraceError) {
        let destination = canonical(output)
        if let input = inputs.first(where: { canonical($0) == destination }) {
            throw .io(file: output, reason: "is the input \(input); write to another file")
        }
    }

    /// The path with symbolic links, `.` and `..` resolved; as given when it cannot be.
    public static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return (path as NSString).standardizingPath }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
