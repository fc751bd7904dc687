import Foundation
import ImagePipeline
#if canImport(Glibc)
import Glibc
#endif

/// Makes a trace given as a pipe (`<(zcat trace.csv.gz)`, `/dev/stdin` fed by a pipe)
/// readable as a file: its format is sniffed from its first bytes and it is read more
/// than once, which a pipe cannot give. Its bytes are copied once, as they arrive, to
/// a temporary file of the same name, removed when the process ends.
public enum InputSpool {
    /// Folders to remove at exit, and each pipe's copy (a pipe can be read only once).
    private static let spooled = Locked<(folders: [String], copies: [String: String])>(([], [:]))

    /// `path` when it is a file (or does not exist, for the reader to report); a
    /// temporary copy when it is a pipe or socket. A device is refused: it never ends.
    public static func readable(_ path: String) throws(TraceError) -> String {
        var status = stat()
        guard stat(path, &status) == 0 else { return path }
        switch status.st_mode & S_IFMT {
        case S_IFIFO, S_IFSOCK: break
        case S_IFCHR, S_IFBLK:
            throw .io(file: path, reason: "a device, not a trace file (give a file, or a pipe such as <(zcat trace.gz))")
        default: return path
        }
        if let copy = spooled.withLock({ $0.copies[path] }) { return copy }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icb-spool-\(UUID().uuidString)").path
        let name = URL(fileURLWithPath: path).lastPathComponent
        let copy = folder + "/" + (name.isEmpty ? "stdin" : name)
        guard mkdir(folder, 0o700) == 0 else { throw .io(file: path, reason: "cannot make a temporary folder for the pipe's contents") }
        registerRemoval(folder)
        let input = open(path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .io(file: path, reason: "cannot open for reading (\(FileSystemError.reason(errno)))") }
        defer { close(input) }
        let output = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw .io(file: path, reason: "cannot copy the pipe to \(copy) (\(FileSystemError.reason(errno)))") }
        defer { close(output) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = read(input, buffer, 1 << 20)
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                throw .io(file: path, reason: "reading the pipe failed (\(FileSystemError.reason(errno)))")
            }
            var done = 0
            while done < got {
                let wrote = write(output, buffer + done, got - done)
                if wrote < 0, errno == EINTR { continue }
                guard wrote > 0 else {
                    throw .io(file: path, reason: "cannot copy the pipe to \(copy) (\(FileSystemError.reason(errno)))")
                }
                done += wrote
            }
        }
        spooled.withLock { $0.copies[path] = copy }
        return copy
    }

    private static func registerRemoval(_ folder: String) {
        let first = spooled.withLock { state in
            state.folders.append(folder)
            return state.folders.count == 1
        }
        if first { atexit { InputSpool.removeAll() } }
    }

    static func removeAll() {
        for folder in spooled.withLock({ $0.folders }) { try? FileManager.default.removeItem(atPath: folder) }
    }
}
