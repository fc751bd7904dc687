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

/// The reader decodes event lines with its own JSON decoder; each event it returns must be
/// what Foundation's `JSONDecoder` makes of the same line (it may refuse more, never less).
/// The lines are split here as the reader splits them: blank lines skipped, CR dropped.
func referenceEvents(_ bytes: UnsafeBufferPointer<UInt8>) -> [TraceEvent?] {
    bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        .filter { !$0.allSatisfy { $0 == 0x20 || (0x09...0x0D).contains($0) } }
        .dropFirst()  // the header
        .map { try? JSONDecoder().decode(TraceEvent.self, from: Data(String(decoding: $0, as: UTF8.self).utf8)) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    _ = FileManager.default.createFile(atPath: Scratch.path, contents: Data(bytes: bytes, count: count))
    // Removed after every input: libFuzzer ends the process with exit(), past any clean-up.
    defer { unlink(Scratch.path) }
    var events: [TraceEvent] = []
    do {
        var reader = try TraceReader(path: Scratch.path)
        while let event = try reader.next() { events.append(event) }
    } catch {}
    let gzip = count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    if !gzip, !events.isEmpty {
        let expected = referenceEvents(UnsafeBufferPointer(start: bytes, count: count))
        for (index, event) in events.enumerated() where expected[index] != event {
            fatalError("event \(index + 1): the reader made \(event), JSONDecoder \(String(describing: expected[index]))")
        }
    }
    return 0
}
