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
            Self.unfinished.withLock { _ = $0.insert(writingPath) }
        }
    }

    /// Files being written that are not yet committed or discarded: removed however the
    /// process ends (`discardUnfinished`), so no `.partial-PID` file outlives its run.
    private static let unfinished = Locked<Set<String>>([])

    /// Removes every file still being written. The command line calls it on every way out:
    /// an error, an exit, and a signal that ends the process.
    public static func discardUnfinished() {
        for path in unfinished.withLock({ files in defer { files.removeAll() }; return files }) { unlink(path) }
    }

    /// Renames the whole file into place.
    public func commit() throws(TraceError) {
        guard writingPath != path else { return }
        Self.unfinished.withLock { _ = $0.remove(writingPath) }
        guard rename(writingPath, path) == 0 else {
            let reason = FileSystemError.reason(errno)
            discard()
            throw .io(file: path, reason: "cannot put the finished file in place (\(reason))")
        }
    }

    /// Removes what was written (after a failure).
    public func discard() {
        guard writingPath != path else { return }
        Self.unfinished.withLock { _ = $0.remove(writingPath) }
        unlink(writingPath)
    }

    /// Writes `contents` to `path` whole (under the hidden name, then renamed into place); on any
    /// failure nothing is left and the error says where and why in plain words.
    public static func write(_ contents: Data, to path: String) throws(TraceError) {
        let output = OutputFile(path)
        // Written with the system's own calls, so a failure keeps its errno (Foundation's writes
        // report a full disk or a file-size limit as an unnamed Cocoa error).
        let descriptor = open(output.writingPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = FileSystemError.reason(errno)
            output.discard()
            throw .io(file: path, reason: "cannot write (\(reason))")
        }
        let failure: Int32? = contents.withUnsafeBytes { all in
            var offset = 0
            while offset < all.count {
                let count = Glibc.write(descriptor, all.baseAddress! + offset, all.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return count < 0 ? errno : EIO }
                offset += count
            }
            return nil
        }
        let closed = close(descriptor) == 0 ? nil : errno
        if let code = failure ?? closed {
            output.discard()
            throw .io(file: path, reason: "cannot write (\(FileSystemError.reason(code)))")
        }
        try output.commit()
    }

    /// Refuses a destination that is one of the files a command reads.
    public static func refuseOverwriting(_ output: String, inputs: [String]) throws(TraceError) {
        let destination = canonical(output)
        if let input = inputs.first(where: { canonical($0) == destination }) {
            throw .io(file: output, reason: "is the input \(input); write to another file")
        }
    }

    /// The folder `path` names a file in: `.` for a bare name, `/` at the top. Worked out on the
    /// text, which any name a user types can go through.
    public static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let head = trimmed[..<slash]
        return head.isEmpty ? "/" : String(head)
    }

    /// The path with symbolic links, `.` and `..` resolved; as given when it cannot be.
    public static func canonical(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return (path as NSString).standardizingPath }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
