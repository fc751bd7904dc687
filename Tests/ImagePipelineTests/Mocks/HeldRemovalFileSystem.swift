import Dispatch
import Foundation
@testable import ImagePipeline

/// The real file system, except that the first removal of a cache entry waits until the
/// test lets it go: a trim can be held inside its work while the test does something else.
final class HeldRemovalFileSystem: FileSystem {
    private let real = PosixFileSystem()
    private let held = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let first = Locked(true)

    /// Waits until a removal is being held.
    func waitUntilHolding() { held.wait() }

    /// Lets the held removal go on.
    func release() { released.signal() }

    func remove(_ path: String) throws(FileSystemError) {
        let name = (path as NSString).lastPathComponent
        if !name.hasPrefix("."), !name.hasSuffix(".tmp"), first.withLock({ isFirst in defer { isFirst = false }; return isFirst }) {
            held.signal()
            released.wait()
        }
        try real.remove(path)
    }

    func makeDirectory(_ path: String) throws(FileSystemError) { try real.makeDirectory(path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try real.contentsOfDirectory(path) }
    func read(_ path: String) throws(FileSystemError) -> Data { try real.read(path) }
    func readTail(_ path: String, count: Int) throws(FileSystemError) -> (bytes: Data, fileSize: Int) {
        try real.readTail(path, count: count)
    }
    func create(_ path: String) throws(FileSystemError) -> Int32 { try real.create(path) }
    func write(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(FileSystemError) -> Int {
        try real.write(descriptor, bytes)
    }
    func synchronize(_ descriptor: Int32) throws(FileSystemError) { try real.synchronize(descriptor) }
    func close(_ descriptor: Int32) { real.close(descriptor) }
    func synchronizeDirectory(_ path: String) throws(FileSystemError) { try real.synchronizeDirectory(path) }
    func rename(_ source: String, to destination: String) throws(FileSystemError) { try real.rename(source, to: destination) }
    func lockExclusively(_ path: String) throws(FileSystemError) -> Int32 { try real.lockExclusively(path) }
}
