import Foundation
import ImagePipeline

/// The real file system with faults switched on and off while it runs: short
/// writes, a full disk, I/O errors (always, or on every n-th read and write),
/// a failing create or rename. The unit tests and `stress` share it.
public final class FaultInjectingFileSystem: FileSystem {
    public struct Faults: Sendable {
        /// Each write call writes at most this many bytes.
        public var maxBytesPerWrite: Int?
        /// Every write fails with this errno (ENOSPC: a full disk).
        public var writeError: Int32?
        public var readError: Int32?
        public var renameError: Int32?
        public var createError: Int32?
        /// Every n-th read or write (counted together) fails with EIO.
        public var failEveryNth: Int?
        /// Runs before each removal, on the thread removing: a test can hold a removal there.
        public var beforeRemove: (@Sendable (_ path: String) -> Void)?
        /// Runs before each file is created, on the thread writing: a test can hold a write there.
        public var beforeCreate: (@Sendable (_ path: String) -> Void)?

        public init(
            maxBytesPerWrite: Int? = nil, writeError: Int32? = nil, readError: Int32? = nil, renameError: Int32? = nil,
            createError: Int32? = nil, failEveryNth: Int? = nil, beforeRemove: (@Sendable (_ path: String) -> Void)? = nil,
            beforeCreate: (@Sendable (_ path: String) -> Void)? = nil
        ) {
            self.maxBytesPerWrite = maxBytesPerWrite
            self.writeError = writeError
            self.readError = readError
            self.renameError = renameError
            self.createError = createError
            self.failEveryNth = failEveryNth
            self.beforeRemove = beforeRemove
            self.beforeCreate = beforeCreate
        }
    }

    private let real = PosixFileSystem()
    private let state: SharedLocked<(faults: Faults, operations: Int)>

    public init(_ faults: Faults = Faults()) { state = SharedLocked((faults, 0)) }

    public func set(_ change: (inout Faults) -> Void) { state.withLock { change(&$0.faults) } }

    /// The faults now, counting a read or write towards `failEveryNth`.
    private func faults(countingIO: Bool) -> (Faults, nthFails: Bool) {
        state.withLock { state in
            guard countingIO, let every = state.faults.failEveryNth else { return (state.faults, false) }
            state.operations += 1
            return (state.faults, state.operations % max(every, 1) == 0)
        }
    }

    public func makeDirectory(_ path: String) throws(FileSystemError) { try real.makeDirectory(path) }
    public func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.contentsOfDirectory(path) }

    public func read(_ path: String) throws(FileSystemError) -> Data {
        let (faults, nthFails) = faults(countingIO: true)
        if let code = faults.readError ?? (nthFails ? EIO : nil) { throw FileSystemError("read", path, code: code) }
        return try real.read(path)
    }

    public func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int) {
        try real.readTail(path, count: count)
    }

    public func create(_ path: String) throws(FileSystemError) -> Int32 {
        let faults = faults(countingIO: false).0
        faults.beforeCreate?(path)
        if let code = faults.createError { throw FileSystemError("create", path, code: code) }
        return try real.create(path)
    }

    public func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        let (faults, nthFails) = faults(countingIO: true)
        if let code = faults.writeError ?? (nthFails ? EIO : nil) { throw FileSystemError("write", "fd \(descriptor)", code: code) }
        let limit = min(bytes.count, faults.maxBytesPerWrite ?? bytes.count)
        return try real.write(descriptor, UnsafeRawBufferPointer(rebasing: bytes[0..<limit]))
    }

    public func synchronize(_ descriptor: Int32) throws(FileSystemError) { try real.synchronize(descriptor) }
    public func close(_ descriptor: Int32) { real.close(descriptor) }
    public func synchronizeDirectory(_ path: String) throws(FileSystemError) { try real.synchronizeDirectory(path) }

    public func rename(_ source: String, to destination: String) throws(FileSystemError) {
        if let code = faults(countingIO: false).0.renameError { throw FileSystemError("rename", source, code: code) }
        try real.rename(source, to: destination)
    }

    public func remove(_ path: String) throws(FileSystemError) {
        faults(countingIO: false).0.beforeRemove?(path)
        try real.remove(path)
    }
    public func lockExclusively(_ path: String) throws(FileSystemError) -> Int32 { try real.lockExclusively(path) }
}
