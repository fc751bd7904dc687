import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file-system failure: the operation, the path, and the errno.
public struct FileSystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(_ operation: String, _ path: String, code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }

    public var description: String { "\(operation) \(path): \(String(cString: strerror(code)))" }

    /// The system's words for an errno, as a clause ("no space left on device").
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }
}

/// The file operations `DiskCache` needs, as a small protocol so tests can
/// inject faults (short writes, ENOSPC, EIO, a failing rename).
public protocol FileSystem: Sendable {
    func makeDirectory(_ path: String) throws(FileSystemError)
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]
    /// The whole file.
    func read(_ path: String) throws(FileSystemError) -> Data
    /// The last `count` bytes (fewer if the file is shorter) and the file's size.
    func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int)
    /// Creates a new file for writing; fails if it exists.
    func create(_ path: String) throws(FileSystemError) -> Int32
    /// Writes some of `bytes`; returns how many (possibly fewer than asked).
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int
    func synchronize(_ descriptor: Int32) throws(FileSystemError)
    func close(_ descriptor: Int32)
    /// Makes a directory's entries (a rename) durable.
    func synchronizeDirectory(_ path: String) throws(FileSystemError)
    func rename(_ source: String, to destination: String) throws(FileSystemError)
    func remove(_ path: String) throws(FileSystemError)
    /// Takes an exclusive advisory lock on `path` (created if needed) without
    /// waiting; returns the descriptor that holds it.
    func lockExclusively(_ path: String) throws(FileSystemError) -> Int32
}

/// The real thing, on POSIX calls.
public struct PosixFileSystem: FileSystem {
    public init() {}

    public func makeDirectory(_ path: String) throws(FileSystemError) {
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw FileSystemError("mkdir", path, code: errno) }
    }

    public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard let directory = opendir(path) else { throw FileSystemError("opendir", path, code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    public func read(_ path: String) throws(FileSystemError) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError("open", path, code: errno) }
        defer { Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystemError("fstat", path, code: errno) }
        return try readFully(descriptor, count: Int(status.st_size), at: 0, path: path)
    }

    public func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError("open", path, code: errno) }
        defer { Glibc.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw FileSystemError("fstat", path, code: errno) }
        let size = Int(status.st_size)
        let length = min(count, size)
        return (try readFully(descriptor, count: length, at: size - length, path: path), size)
    }

    /// Reads into uninitialised memory (no zero-fill of a buffer about to be
    /// overwritten) and hands it to `Data` without a copy.
    private func readFully(_ descriptor: Int32, count: Int, at offset: Int, path: String) throws(FileSystemError) -> Data {
        guard count > 0 else { return Data() }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        var total = 0
        while total < count {
            let got = pread(descriptor, buffer + total, count - total, off_t(offset + total))
            if got < 0 {
                if errno == EINTR { continue }
                let failure = FileSystemError("read", path, code: errno)
                buffer.deallocate()
                throw failure
            }
            if got == 0 { break }  // the file shrank under us
            total += got
        }
        return Data(bytesNoCopy: buffer, count: total, deallocator: .custom { pointer, _ in pointer.deallocate() })
    }

    public func create(_ path: String) throws(FileSystemError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError("create", path, code: errno) }
        return descriptor
    }

    public func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        while true {
            let written = Glibc.write(descriptor, bytes.baseAddress, bytes.count)
            if written >= 0 { return written }
            if errno != EINTR { throw FileSystemError("write", "fd \(descriptor)", code: errno) }
        }
    }

    public func synchronize(_ descriptor: Int32) throws(FileSystemError) {
        guard fsync(descriptor) == 0 else { throw FileSystemError("fsync", "fd \(descriptor)", code: errno) }
    }

    public func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    public func synchronizeDirectory(_ path: String) throws(FileSystemError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileSystemError("open", path, code: errno) }
        defer { Glibc.close(descriptor) }
        guard fsync(descriptor) == 0 else { throw FileSystemError("fsync", path, code: errno) }
    }

    public func rename(_ source: String, to destination: String) throws(FileSystemError) {
        guard Glibc.rename(source, destination) == 0 else { throw FileSystemError("rename", source, code: errno) }
    }

    public func remove(_ path: String) throws(FileSystemError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("unlink", path, code: errno) }
    }

    public func lockExclusively(_ path: String) throws(FileSystemError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw FileSystemError("open", path, code: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw FileSystemError("lock", path, code: code)
        }
        return descriptor
    }
}
