import Foundation
@testable import ImagePipeline

/// The real file system with faults switched on by tests: short writes, a full
/// disk, I/O errors on read, a failing rename, permission denied.
final class FaultInjectingFileSystem: FileSystem {
    struct Faults {
        /// Each write call writes at most this many bytes.
        var maxBytesPerWrite: Int?
        var writeError: Int32?
        var readError: Int32?
        var renameError: Int32?
        var createError: Int32?
    }

    private let real = PosixFileSystem()
    private let faults = Locked(Faults())

    func set(_ change: (inout Faults) -> Void) { faults.withLock { change(&$0) } }
    private var current: Faults { faults.withLock { $0 } }

    func makeDirectory(_ path: String) throws(FileSystemError) { try real.makeDirectory(path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.contentsOfDirectory(path) }

    func read(_ path: String) throws(FileSystemError) -> Data {
        if let code = current.readError { throw FileSystemError("read", path, code: code) }
        return try real.read(path)
    }

    func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int) {
        try real.readTail(path, count: count)
    }

    func create(_ path: String) throws(FileSystemError) -> Int32 {
        if let code = current.createError { throw FileSystemError("create", path, code: code) }
        return try real.create(path)
    }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        let faults = current
        if let code = faults.writeError { throw FileSystemError("write", "fd \(descriptor)", code: code) }
        let limit = min(bytes.count, faults.maxBytesPerWrite ?? bytes.count)
        return try real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[0..<limit]))
    }

    func synchronize(_ descriptor: Int32) throws(FileSystemError) { try real.synchronize(descriptor) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func synchronizeDirectory(_ path: String) throws(FileSystemError) { try real.synchronizeDirectory(path) }

    func rename(_ source: String, to destination: String) throws(FileSystemError) {
        if let code = current.renameError { throw FileSystemError("rename", source, code: code) }
        try real.rename(source, to: destination)
    }

    func remove(_ path: String) throws(FileSystemError) { try real.remove(path) }
    func lockExclusively(_ path: String) throws(FileSystemError) -> Int32 { try real.lockExclusively(path) }
}
