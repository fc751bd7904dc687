import Foundation
import Synchronization
import Testing
@testable import CacheSimulation
import ImagePipeline
import Workloads

@Suite("Plain traces simulated while they are read")
struct PlainTraceStreamTests {
    /// The same requests as an oracleGeneral file and as libCacheSim's csv: Zipf keys, sizes
    /// from 1 to 4,000 bytes, a hundred requests a second.
    static func files(requests: Int = 20_000) throws -> (oracleGeneral: String, csv: String, folder: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let zipf = SimulationTrace.zipf(objects: 3_000, alpha: 0.9, requests: requests, seed: 7)
        var bytes = Data(), text = "time,obj_id,obj_size\n"
        for (index, key) in zipf.keys.enumerated() {
            let id = UInt64(key) &* 0x9E37_79B9 &+ 11, size = UInt32(1 + (Int(key) &* 7_919) % 4_000), time = UInt32(index / 100)
            withUnsafeBytes(of: time.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: id.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: size.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: Int64(-1).littleEndian) { bytes.append(contentsOf: $0) }
            text += "\(time),\(id),\(size)\n"
        }
        let oracleGeneral = folder + "/t.oracleGeneral", csv = folder + "/t.csv"
        try bytes.write(to: URL(fileURLWithPath: oracleGeneral))
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        return (oracleGeneral, csv, folder)
    }

    static func stream(_ path: String, chunk: Int, objects: Bool = false) -> PlainTraceStream {
        PlainTraceStream(name: path) { publish in
            if let format = DelimitedTraceFormat.detect(path) {
                try DelimitedTrace.stream(path, format: format, objects: objects, chunkRequests: chunk, publish: publish)
            } else {
                try OracleGeneralTrace.stream(path, objects: objects, chunkRequests: chunk, publish: publish)
            }
        }
    }

    static func whole(_ path: String, objects: Bool = false) throws -> SimulationTrace {
        if let format = DelimitedTraceFormat.detect(path) { return try DelimitedTrace.read(path, format: format, objects: objects) }
        return try OracleGeneralTrace.read(path, objects: objects)
    }

    @Test("chunks of any length, put end to end, are the trace read whole", arguments: [1, 777, 4_096, 1_000_000])
    func chunksAddUp(_ length: Int) throws {
        let (oracleGeneral, csv, folder) = try Self.files(requests: 9_000)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // libCacheSim's txt: keys only, a request a second (its times count requests across chunks).
        let txt = folder + "/t.txt"
        let ids = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n").dropFirst().map { $0.split(separator: ",")[1] }
        try ids.joined(separator: "\n").write(toFile: txt, atomically: true, encoding: .utf8)
        for path in [oracleGeneral, csv, txt] {
            var keys: [Slot] = [], weights: [Int] = [], times: [UInt64] = [], fingerprints: [UInt64] = [], lengths: [Int] = []
            let read: (PlainTraceChunk) -> Void = { chunk in
                keys += chunk.keys
                weights += chunk.weights
                times += chunk.times
                fingerprints += chunk.newFingerprints
                lengths.append(chunk.count)
            }
            if let format = DelimitedTraceFormat.detect(path) {
                try DelimitedTrace.stream(path, format: format, chunkRequests: length, publish: read)
            } else {
                try OracleGeneralTrace.stream(path, objects: false, chunkRequests: length, publish: read)
            }
            let whole = try Self.whole(path)
            #expect(keys == whole.keys && weights == whole.costs && times == whole.times && fingerprints == whole.fingerprints, "\(path)")
            #expect(lengths.dropLast().allSatisfy { $0 == length } && lengths.last! <= length && lengths.reduce(0, +) == 9_000, "\(path)")
        }
    }

    @Test("every policy decides a streamed trace as the trace read whole: stripes, a disk, warnings, a time to live, objects")
    func samePolicyDecisions() throws {
        let (oracleGeneral, csv, folder) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let limits = CacheLimits(costLimit: 300_000, maxEntryFraction: 0.1)
        let configurations: [(String, (EvictionPolicyKind) -> SimulationConfiguration)] = [
            ("plain", { SimulationConfiguration(limits: limits, policy: $0) }),
            ("4 stripes, a disk", {
                SimulationConfiguration(limits: limits, policy: $0, disk: .init(byteLimit: 2_000_000), stripes: CacheStripes(4))
            }),
            ("warnings every 30 s, a time to live", {
                SimulationConfiguration(
                    limits: limits, policy: $0, timeToLive: .seconds(40), pressure: MemoryPressurePolicy(warning: .trimToFraction(0.5), critical: .purgeAll), warnings: .every(seconds: 30))
            }),
        ]
        for path in [oracleGeneral, csv] {
            for objects in [false, true] {
                let whole = try Self.whole(path, objects: objects)
                for policy in EvictionPolicyKind.allCases {
                    for (name, configuration) in configurations {
                        let stream = Self.stream(path, chunk: 777, objects: objects)
                        let streamed = CacheSimulator.run(stream.cursors(1)[0], configuration(policy))
                        try stream.finished()
                        let expected = CacheSimulator.run(whole, configuration(policy))
                        #expect(streamed == expected, "\(path) objects \(objects) \(policy) \(name)")
                        #expect(streamed.requests == 20_000 && streamed.hits > 0)
                    }
                }
            }
        }
    }

    @Test("on a clock, a streamed trace is timed as the trace read whole, its requests arriving at their times or back to back")
    func sameTimes() throws {
        let (oracleGeneral, _, folder) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = try Self.whole(oracleGeneral)
        for arrivals in SimulationConfiguration.Arrivals.allCases {
            for policy in [EvictionPolicyKind.lru, .sieve] {
                var configuration = SimulationConfiguration(
                    limits: CacheLimits(costLimit: 300_000), policy: policy, disk: .init(byteLimit: 2_000_000), inFlight: 6,
                    network: RequestClockTests.network)
                configuration.arrivals = arrivals
                let stream = Self.stream(oracleGeneral, chunk: 777)
                let streamed = CacheSimulator.run(stream.cursors(1)[0], configuration)
                try stream.finished()
                let expected = CacheSimulator.run(whole, configuration)
                #expect(streamed == expected, "\(arrivals) \(policy)")
                #expect(streamed.timeToImage?.overall.count == 20_000 && (streamed.timeToImage?.networkBytes ?? 0) > 0)
            }
        }
    }

    @Test("several runs of one stream, on threads of their own, each see the whole trace")
    func severalRuns() async throws {
        let (oracleGeneral, _, folder) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let whole = try Self.whole(oracleGeneral)
        let policies: [EvictionPolicyKind] = [.lru, .arc, .lirs]
        let configurations = policies.map { SimulationConfiguration(limits: CacheLimits(costLimit: 300_000, maxEntryFraction: 0.1), policy: $0) }
        let stream = Self.stream(oracleGeneral, chunk: 500)
        let cursors = stream.cursors(configurations.count)
        #expect(stream.cursors(1).isEmpty, "the start is handed out once")
        let results = await withTaskGroup(of: (Int, SimulationResult).self) { group in
            for (index, cursor) in cursors.enumerated() {
                group.addTask { (index, CacheSimulator.run(cursor, configurations[index])) }
            }
            var results: [Int: SimulationResult] = [:]
            for await (index, result) in group { results[index] = result }
            return results
        }
        try stream.finished()
        for (index, configuration) in configurations.enumerated() {
            #expect(results[index] == CacheSimulator.run(whole, configuration), "\(policies[index])")
        }
    }

    @Test("a malformed line ends the stream with its error at file:line, as the whole read refuses the file")
    func failure() throws {
        let (oracleGeneral, csv, folder) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines[15_001] = "150,12,lots"
        try lines.joined(separator: "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        var wholeError: TraceError?
        do { _ = try Self.whole(csv) } catch { wholeError = error as? TraceError }
        #expect(wholeError.map { "\($0)" }?.contains(":15002") == true, "\(String(describing: wholeError))")
        let stream = Self.stream(csv, chunk: 1_000)
        let result = CacheSimulator.run(stream.cursors(1)[0], SimulationConfiguration(limits: CacheLimits(costLimit: 300_000), policy: .lru))
        #expect(result.requests < 15_001)
        #expect(throws: (any Error).self) { try stream.finished() }
        do { try stream.finished() } catch { #expect(error as? TraceError == wholeError) }
        // An oracleGeneral file cut inside a record.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: oracleGeneral))
        try bytes.prefix(bytes.count - 5).write(to: URL(fileURLWithPath: oracleGeneral))
        let cut = Self.stream(oracleGeneral, chunk: 1_000)
        _ = CacheSimulator.run(cut.cursors(1)[0], SimulationConfiguration(limits: CacheLimits(costLimit: 300_000), policy: .lru))
        #expect(throws: SimulationTraceFile.FileError.self) { try cut.finished() }
    }

    @Test("the reader stops a few chunks ahead of a stream's one run, and never waits for several runs")
    func readerWaitsForOneRun() throws {
        let (oracleGeneral, _, folder) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for runs in [1, 2] {
            let published = Atomic(0)
            let stream = PlainTraceStream(name: "t") { publish in
                try OracleGeneralTrace.stream(oracleGeneral, objects: true, chunkRequests: 100) { chunk in
                    publish(chunk)
                    published.add(1, ordering: .relaxed)
                }
            }
            var cursors = stream.cursors(runs)
            if runs == 1 {
                // Held at the start, the run has passed nothing: the reader stops once it is as far ahead as allowed.
                let deadline = ContinuousClock.now + .seconds(20)
                while published.load(ordering: .relaxed) < PlainTraceStream.chunksAhead, ContinuousClock.now < deadline {
                    Thread.sleep(forTimeInterval: 0.005)
                }
                Thread.sleep(forTimeInterval: 0.2)
                #expect(published.load(ordering: .relaxed) == PlainTraceStream.chunksAhead)
                var chunks = 0
                while cursors[0].next() != nil { chunks += 1 }
                #expect(chunks == 200)
            }
            try stream.finished()
            #expect(published.load(ordering: .relaxed) == 200)
            cursors.removeAll()
        }
    }
}
