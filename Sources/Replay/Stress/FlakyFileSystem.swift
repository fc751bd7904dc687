import Foundation
import ImagePipeline

/// The real file system with a deterministic share of failing reads and writes
/// (EIO), or a full disk (every write ENOSPC): the disk faults `stress` runs under.
struct FlakyFileSystem: FileSystem {
    enum Mode: Sendable { case failing(everyNth: Int), full }

    let mode: Mode
    private let real = PosixFileSystem()
    private let operations = SharedLocked(0)

    init(_ mode: Mode) { self.mode = mode }

    /// Whether this operation fails: the n-th, 2n-th, … in `.failing`.
    private func fails() -> Bool {
        guard case .failing(let every) = mode else { return false }
        return operations.withLock { $0 += 1; return $0 % max(every, 1) == 0 }
    }

    func makeDirectory(_ path: String) throws(FileSystemError) { try real.makeDirectory(path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.contentsOfDirectory(path) }

    func read(_ path: String) throws(FileSystemError) -> Data {
        if fails() { throw FileSystemError("read", path, code: EIO) }
        return try real.read(path)
    }

    func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int) {
        try real.readTail(path, count: count)
    }

    func create(_ path: String) throws(FileSystemError) -> Int32 { try real.create(path) }

    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        if case .full = mode { throw FileSystemError("write", "fd \(descriptor)", code: ENOSPC) }
        if fails() { throw FileSystemError("write", "fd \(descriptor)", code: EIO) }
        return try real.write(descriptor, bytes)
    }

    func synchronize(_ descriptor: Int32) throws(FileSystemError) { try real.synchronize(descriptor) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func synchronizeDirectory(_ path: String) throws(FileSystemError) { try real.synchronizeDirectory(path) }
    func rename(_ source: String, to destination: String) throws(FileSystemError) { try real.rename(source, to: destination) }
    func remove(_ path: String) throws(FileSystemError) { try real.remove(path) }
    func lockExclusively(_ path: String) throws(FileSystemError) -> Int32 { try real.lockExclusively(path) }
}
