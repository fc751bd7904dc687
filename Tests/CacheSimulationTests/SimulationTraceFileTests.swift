import Foundation
import Testing
@testable import ImagePipeline
import CacheSimulation

@Suite("Binary simulation traces (.icbt)")
struct SimulationTraceFileTests {
    @Test("a trace written and read back is the same trace and simulates the same")
    func roundTrip() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icbt-\(UUID().uuidString).icbt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = SimulationTrace.zipf(objects: 500, alpha: 0.9, requests: 20_000, seed: 7, cost: 3)
        try SimulationTraceFile.write(trace, to: path)
        #expect(SimulationTraceFile.isBinaryTrace(path))
        let read = try SimulationTraceFile.read(path)
        #expect(read.keys == trace.keys && read.costs == trace.costs && read.sizes == trace.sizes)
        #expect(read.times == trace.times && read.fingerprints == trace.fingerprints)
        let configuration = SimulationConfiguration(limits: CacheLimits(costLimit: 300), policy: .s3fifo(moveToMainThreshold: 1))
        #expect(CacheSimulator.run(read, configuration) == CacheSimulator.run(trace, configuration))
    }

    @Test("a request over the 32-bit columns is refused, and no file is left")
    func tooLarge() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icbt-\(UUID().uuidString).icbt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var trace = SimulationTrace()
        _ = trace.addKey(fingerprint: 1)
        _ = trace.addKey(fingerprint: 2)
        trace.append(key: 0, cost: 10, size: 10, time: 0)
        trace.append(key: 1, cost: 10, size: 5 << 30, time: 1)
        #expect(throws: SimulationTraceFile.FileError.unrepresentable(
            path: path, reason: "request 2 costs 10 and weighs 5368709120 bytes, over the 4 GiB (32 bits) the binary form holds; "
                + "keep the trace in the format it came in")) {
            try SimulationTraceFile.write(trace, to: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        // At the limit it is written and read back whole.
        var largest = SimulationTrace()
        _ = largest.addKey(fingerprint: 1)
        largest.append(key: 0, cost: Int(UInt32.max), size: Int(UInt32.max), time: 0)
        try SimulationTraceFile.write(largest, to: path)
        #expect(try SimulationTraceFile.read(path).sizes == [Int(UInt32.max)])
    }

    @Test("a cut, foreign or inconsistent file is a clear error")
    func malformed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("icbt-\(UUID().uuidString).icbt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try SimulationTraceFile.write(SimulationTrace.zipf(objects: 10, alpha: 1, requests: 100, seed: 1), to: path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))

        try bytes.prefix(bytes.count - 3).write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(path: path, reason: "its size does not match 100 requests and 10 keys")) {
            try SimulationTraceFile.read(path)
        }
        // Named .icbt, a file is read as one, and refused when it is not.
        try Data("{\"schema\":1}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(SimulationTraceFile.isBinaryTrace(path))
        #expect(throws: SimulationTraceFile.FileError.self) { try SimulationTraceFile.read(path) }
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(
            path: path, reason: "an empty file; a binary trace starts with ICBT and a 24-byte header (synth-trace writes one)")) {
            try SimulationTraceFile.read(path)
        }

        var wrongKey = bytes
        wrongKey[24 + 10 * 8] = 99  // the first request names key 99 of 10
        try wrongKey.write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(path: path, reason: "a request names a key beyond the 10 keys")) {
            try SimulationTraceFile.read(path)
        }
    }
}

@Suite("Recorded traces: times that cannot be")
struct RecordedTraceTimeTests {
    /// A trace of `lines` after a header and a session start, loaded as the commands load it.
    func load(_ lines: [String]) throws -> RecordedWorkload {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("times-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let header = #"{"app":"Test","generator":"test","modelVersion":"1","schema":1,"seed":1,"sessions":1}"#
        try ([header, #"{"t":0,"type":"session","session":1}"#] + lines).joined(separator: "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return try RecordedWorkload.load(path: path)
    }

    static let image = #"{"t":500,"type":"image","image":{"boxHeight":10,"boxWidth":10,"bytes":100,"content":1,"format":"jpeg","height":20,"id":1,"priority":"visible","scale":1,"url":"https://a.example/1.jpg","width":20}}"#

    @Test("a cancel before its request is refused with its line")
    func cancelBeforeRequest() {
        let error = #expect(throws: (any Error).self) { try load([Self.image, #"{"t":100,"type":"cancel","id":1}"#]) }
        #expect("\(error.map { "\($0)" } ?? "")".contains(":4: time 100 ms comes after 500 ms in the same session"), "\(String(describing: error))")
        #expect(throws: Never.self) { try load([Self.image, #"{"t":900,"type":"cancel","id":1}"#]) }
    }

    @Test("sessions whose times add up past the clock are refused with a line, not a trap")
    func sessionsOverflow() throws {
        let year = 366 * 24 * 3_600_000
        let sessions = (2...700).flatMap { [#"{"t":\#(year),"type":"relaunch"}"#, #"{"t":0,"type":"session","session":\#($0)}"#] }
        let error = #expect(throws: (any Error).self) { try load(sessions) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("add up to more than the clock holds"), "\(String(describing: error))")
    }
}
