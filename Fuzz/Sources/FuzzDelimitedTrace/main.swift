import CacheSimulation
import Foundation
import Workloads

/// Any bytes as a delimited trace (the first byte picks the layout: libCacheSim's csv or
/// txt, a TSV, or a CSV with a column mapping drawn from the second byte): the reader
/// returns requests or a `TraceError` naming the file, never crashes; what it returns is
/// consistent (every request's key is a key it added, at most one request a line).
enum Scratch {
    static let path = (FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm")
        : FileManager.default.temporaryDirectory).appendingPathComponent("fuzz-delimited-\(getpid()).csv").path
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count >= 2 else { return 0 }
    let format: DelimitedTraceFormat
    switch bytes[0] % 4 {
    case 0: format = .libCacheSimCSV
    case 1: format = .libCacheSimText
    case 2: format = DelimitedTraceFormat(delimiter: UInt8(ascii: "\t"), key: 2, time: 1, size: 3)
    default:
        let choice = Int(bytes[1])
        var mapped = DelimitedTraceFormat(delimiter: UInt8(ascii: ","), key: 1 + choice % 3)
        mapped.size = choice & 4 == 0 ? nil : 1 + (choice / 3 + 1 + choice % 3) % 3
        if mapped.size == mapped.key { mapped.size = nil }
        mapped.timeUnit = DelimitedTraceFormat.TimeUnit.allCases[(choice >> 4) % 4]
        format = mapped
    }
    let body = Data(bytes: bytes + 2, count: count - 2)
    _ = FileManager.default.createFile(atPath: Scratch.path, contents: body)
    // Removed after every input: libFuzzer ends the process with exit(), past any clean-up.
    defer { unlink(Scratch.path) }
    do {
        let trace = try DelimitedTrace.read(Scratch.path, format: format, objects: bytes[0] & 8 != 0, allowsEmpty: bytes[0] & 16 != 0)
        let lines = body.reduce(1) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
        precondition(trace.count <= lines, "more requests than lines")
        precondition(trace.keys.allSatisfy { Int($0) < trace.fingerprints.count }, "a request names a key never added")
    } catch {
        precondition("\(error)".hasPrefix(Scratch.path), "an error that does not name the file: \(error)")
    }
    return 0
}
