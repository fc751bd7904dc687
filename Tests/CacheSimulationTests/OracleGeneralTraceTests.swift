import Foundation
import Testing
@testable import CacheSimulation

@Suite("libCacheSim oracleGeneral traces, read a block at a time")
struct OracleGeneralTraceTests {
    /// Records whose ids collide in the low bits and the high bits alike, first seen in a known order.
    static func records(_ count: Int) -> (bytes: Data, ids: [UInt64], sizes: [UInt32]) {
        var random = SystemRandomNumberGenerator()
        var bytes = Data(), ids: [UInt64] = [], sizes: [UInt32] = []
        for index in 0..<count {
            let id: UInt64 = index % 3 == 0 ? UInt64(index % 5_000) << 40 : UInt64.random(in: 0..<30_000, using: &random) &* 4_096
            let size = UInt32(1 + index % 977)
            ids.append(id)
            sizes.append(size)
            withUnsafeBytes(of: UInt32(index / 1_000).littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: id.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: size.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: Int64(-1).littleEndian) { bytes.append(contentsOf: $0) }
        }
        return (bytes, ids, sizes)
    }

    static func expect(_ trace: SimulationTrace, matches ids: [UInt64], sizes: [UInt32], objects: Bool) {
        var slots: [UInt64: Int32] = [:], fingerprints: [UInt64] = []
        let keys = ids.map { id -> Int32 in
            if let slot = slots[id] { return slot }
            fingerprints.append(id)
            slots[id] = Int32(slots.count)
            return Int32(slots.count - 1)
        }
        #expect(trace.count == ids.count && trace.keys == keys && trace.fingerprints == fingerprints)
        #expect(trace.costs == (objects ? Array(repeating: 1, count: ids.count) : sizes.map(Int.init)))
        #expect(trace.times == (0..<ids.count).map { UInt64($0 / 1_000) * 1_000_000_000 })
    }

    @Test("a file of 200,000 records: dense ids in first-seen order, sizes or objects, times in nanoseconds")
    func file() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("og-\(UUID().uuidString).oracleGeneral").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (bytes, ids, sizes) = Self.records(200_000)
        try bytes.write(to: URL(fileURLWithPath: path))
        for objects in [true, false] {
            Self.expect(try OracleGeneralTrace.read(path, objects: objects), matches: ids, sizes: sizes, objects: objects)
        }
        // A cut last record is named, with the bytes read.
        try bytes.prefix(bytes.count - 5).write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(
            path: path, reason: "\(bytes.count - 5) bytes is not a whole number of 24-byte records; record 200000 is cut short")) {
            try OracleGeneralTrace.read(path, objects: true)
        }
    }

    @Test("blocks that end inside records, of 1 to 100 bytes, read as the whole file does")
    func blocksOfAnyLength() {
        let (bytes, ids, sizes) = Self.records(5_000)
        var reader = OracleGeneralTrace.Reader(expectedRequests: 0, objects: false)
        var start = 0, length = 1
        while start < bytes.count {
            let end = min(start + length, bytes.count)
            reader.feed(bytes.subdata(in: start..<end))
            start = end
            length = length % 100 + 7
        }
        #expect(reader.isAtRecordBoundary && reader.bytesRead == bytes.count)
        Self.expect(reader.trace(), matches: ids, sizes: sizes, objects: false)
        reader.feed(bytes.prefix(10))
        #expect(!reader.isAtRecordBoundary)
    }

    @Test("through a pipe, the same trace as the file")
    func pipe() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("og-\(UUID().uuidString).oracleGeneral").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (bytes, ids, sizes) = Self.records(50_000)
        try bytes.write(to: URL(fileURLWithPath: path))
        let cat = Process(), pipe = Pipe()
        cat.executableURL = URL(fileURLWithPath: "/bin/cat")
        cat.arguments = [path]
        cat.standardOutput = pipe
        try cat.run()
        let trace = try OracleGeneralTrace.read("/dev/fd/\(pipe.fileHandleForReading.fileDescriptor)", objects: false)
        cat.waitUntilExit()
        Self.expect(trace, matches: ids, sizes: sizes, objects: false)
    }
}
