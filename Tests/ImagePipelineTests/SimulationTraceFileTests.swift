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
        try Data("{\"schema\":1}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(!SimulationTraceFile.isBinaryTrace(path))
        #expect(throws: SimulationTraceFile.FileError.self) { try SimulationTraceFile.read(path) }

        var wrongKey = bytes
        wrongKey[24 + 10 * 8] = 99  // the first request names key 99 of 10
        try wrongKey.write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(path: path, reason: "a request names a key beyond the 10 keys")) {
            try SimulationTraceFile.read(path)
        }
    }
}
