import Foundation
import Workloads

/// Any bytes as a trace file: the reader returns events or a `TraceError`, never crashes.
/// (Written to a file because the reader streams from one, gzip or plain.)
/// In memory (/dev/shm) where there is one: on disk each input cost a file write, and the
/// target ran at the disk's pace.
enum Scratch {
    static let path = (FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
        : FileManager.default.temporaryDirectory).appendingPathComponent("fuzz-trace-\(getpid()).jsonl").path
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = FileManager.default.createFile(atPath: Scratch.path, contents: Data(bytes: bytes, count: count))
    do {
        var reader = try TraceReader(path: Scratch.path)
        while try reader.next() != nil {}
    } catch {}
    return 0
}
