import Foundation
import ImagePipeline
import ImageSynthesis
import PipelineTesting
import CacheSimulation
import Testing

/// The order the live pipeline's tiers take their decisions in, and the simulator run in it.
@Suite("Observed order: the pipeline's decision log, and the simulator run in it")
struct ObservedOrderTests {
    static let url = "https://img.example/a.jpg"
    static let jpeg = try! ImageSynthesizer.image(SynthesisSpec(seed: 5, width: 320, height: 240, format: .jpeg(quality: 80)))

    /// Collects what the pipeline reports.
    final class Log: DecisionRecorder {
        let steps = SharedLocked<[(PipelineDecision, Int)]>([])
        func record(_ decision: PipelineDecision, request: Int, bytes: Int) { steps.withLock { $0.append((decision, request)) } }
        func of(_ request: Int) -> [PipelineDecision] { steps.withLock { $0.filter { $0.1 == request }.map(\.0) } }
        var order: ObservedOrder {
            ObservedOrder(steps: steps.withLock { $0.map { .decision($0.0, request: Int32($0.1)) } })
        }
    }

    @Test("requests in flight together: the leader's steps in order, a joiner's two, a download shared; the simulator in that order answers as live did")
    func pipelineLogAndSimulatorAgree() async throws {
        let fetcher = ScriptedFetcher([Self.url: .data(Self.jpeg)])
        let log = Log()
        let pipeline = try ImagePipeline(.init(maxConcurrentDecodes: 2, decisionRecorder: log), fetcher: fetcher)
        let requests = [100, 100, 60].enumerated().map { ImageRequest(url: Self.url, box: .square($1), id: $0) }
        fetcher.closeGate()
        let sources = try await withThrowingTaskGroup(of: (Int, ImageResponse.Source).self) { group in
            group.addTask { (0, try await pipeline.image(for: requests[0]).source) }
            await fetcher.waitUntilHeld(1)
            for index in 1...2 { group.addTask { (index, try await pipeline.image(for: requests[index]).source) } }
            // The joiner and the other size reach the held download.
            await waitUntil { log.of(1).count >= 2 && log.of(2).contains(.download) }
            fetcher.openGate()
            var sources = [ImageResponse.Source](repeating: .memory, count: 3)
            for try await (index, source) in group { sources[index] = source }
            return sources
        }
        #expect(sources == [.origin, .joined, .origin])
        #expect(log.of(0) == [.memoryLookup, .flight, .download, .downloadEnded, .memoryStored, .flightEnded])
        #expect(log.of(1) == [.memoryLookup, .flight])
        #expect(log.of(2) == [.memoryLookup, .flight, .download, .memoryStored, .flightEnded])
        // A fourth request, after they landed: a memory hit, one step.
        _ = try await pipeline.image(for: ImageRequest(url: Self.url, box: .square(100), id: 3))
        #expect(log.of(3) == [.memoryLookup])

        var trace = SimulationTrace()
        for side in [100, 60] { _ = trace.addKey(fingerprint: side.cacheFingerprint) }
        _ = trace.addDiskKey()
        for key: Slot in [0, 0, 1, 0] {
            trace.append(key: key, cost: 1, size: Self.jpeg.count, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        }
        let simulated = CacheSimulator.answers(
            trace, SimulationConfiguration(limits: CacheLimits(costLimit: 100), policy: .lru), observed: log.order)
        #expect(simulated.answers == [.origin, .joined, .origin, .memory])
        #expect(simulated.sharedDownloads == 1)
    }

    /// Three requests for one thumbnail: the first misses and downloads.
    static func trace(outcomes: [SimulationTrace.MissOutcome] = [.store, .store, .store], keys: [Slot] = [0, 0, 0]) -> SimulationTrace {
        var trace = SimulationTrace()
        for key in 0..<2 { _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint) }
        _ = trace.addDiskKey()
        for (key, outcome) in zip(keys, outcomes) {
            trace.append(key: key, cost: 1, size: 10, time: 0, detail: .init(diskKey: 0, content: 0, url: 0, outcome: outcome))
        }
        return trace
    }

    static func run(_ trace: SimulationTrace, _ steps: [(PipelineDecision, Int32)]) -> [CacheSimulator.Answer] {
        CacheSimulator.answers(
            trace, SimulationConfiguration(limits: CacheLimits(costLimit: 100), policy: .lru, disk: .init(byteLimit: 1_000)),
            observed: ObservedOrder(steps: steps.map { .decision($0.0, request: $0.1) })).answers
    }

    @Test("the order decides: a lookup before the landing joins the flight, after it hits memory")
    func orderDecides() {
        let leader: [(PipelineDecision, Int32)] = [
            (.memoryLookup, 0), (.flight, 0), (.diskReadOriginal, 0), (.download, 0), (.originalStored, 0), (.downloadEnded, 0),
        ]
        let landed: [(PipelineDecision, Int32)] = [(.memoryStored, 0), (.flightEnded, 0)]
        let before = leader + [(.memoryLookup, 1), (.flight, 1)] + landed + [(.memoryLookup, 2)]
        let after = leader + landed + [(.memoryLookup, 1), (.memoryLookup, 2)]
        #expect(Self.run(Self.trace(), before) == [.origin, .joined, .memory])
        #expect(Self.run(Self.trace(), after) == [.origin, .memory, .memory])
        // Between the store and the flight's end, a miss would be impossible: memory holds it.
        let between = leader + [(.memoryStored, 0), (.memoryLookup, 1), (.flightEnded, 0), (.memoryLookup, 2)]
        #expect(Self.run(Self.trace(), between) == [.origin, .memory, .memory])
        // Never looked up: not answered, so a gap in the log shows as a difference.
        #expect(Self.run(Self.trace(), leader + landed) == [.origin, .unanswered, .unanswered])
    }

    @Test("a download shared is neither cancelled nor offline by its own request; a leader offline fails its sharers and joiners")
    func sharedDownloads() {
        // Request 1, another size of the URL, was cancelled by the app: sharing request 0's
        // download it never starts one, so the cancel does not reach it.
        let cancelled = Self.trace(outcomes: [.store, .cancelled, .store], keys: [0, 1, 0])
        let shared: [(PipelineDecision, Int32)] = [
            (.memoryLookup, 0), (.flight, 0), (.diskReadOriginal, 0), (.download, 0),
            (.memoryLookup, 1), (.flight, 1), (.diskReadOriginal, 1), (.download, 1),
            (.downloadEnded, 0), (.memoryStored, 0), (.flightEnded, 0), (.memoryStored, 1), (.flightEnded, 1),
            (.memoryLookup, 2),
        ]
        #expect(Self.run(cancelled, shared) == [.origin, .origin, .memory])
        // Request 0 is offline: its download fails, and with it request 1's share and request 2's join.
        let offline = Self.trace(outcomes: [.offline, .store, .store], keys: [0, 1, 0])
        let failing: [(PipelineDecision, Int32)] = [
            (.memoryLookup, 0), (.flight, 0), (.diskReadOriginal, 0), (.download, 0),
            (.memoryLookup, 1), (.flight, 1), (.diskReadOriginal, 1), (.download, 1),
            (.memoryLookup, 2), (.flight, 2),
            (.downloadEnded, 0), (.flightEnded, 0), (.flightEnded, 1),
        ]
        #expect(Self.run(offline, failing) == [.offline, .offline, .offline])
        // A download that broke live (the trace says nothing of it): the request and its joiner
        // report the failure, and nothing is stored, so the next request misses.
        let broken: [(PipelineDecision, Int32)] = [
            (.memoryLookup, 0), (.flight, 0), (.diskReadOriginal, 0), (.download, 0),
            (.memoryLookup, 2), (.flight, 2),
            (.downloadEnded, 0), (.flightEnded, 0), (.failed, 0), (.failed, 2),
            (.memoryLookup, 1), (.flight, 1), (.diskReadOriginal, 1), (.download, 1), (.downloadEnded, 1),
        ]
        #expect(Self.run(Self.trace(keys: [0, 1, 0]), broken) == [.offline, .origin, .offline])
    }

    @Test("a disk store counts the bytes the entry took live, not the trace's estimate: a tier that trims keeps what live kept")
    func storedBytes() {
        // Two originals (URLs 0 and 1), then URL 0 again; the trace estimates 10 bytes each.
        var trace = SimulationTrace()
        for key in 0..<2 {
            _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint)
            _ = trace.addDiskKey()
        }
        for key: Slot in [0, 1, 0] {
            trace.append(key: key, cost: 1, size: 10, time: 0, detail: .init(diskKey: key, content: key, url: key))
        }
        func run(stored: Int) -> [CacheSimulator.Answer] {
            var steps: [ObservedOrder.Step] = []
            for request: Int32 in [0, 1] {
                steps += [.decision(.memoryLookup, request: request), .decision(.flight, request: request),
                          .decision(.diskReadOriginal, request: request), .decision(.download, request: request),
                          .decision(.originalStored, request: request, bytes: stored), .decision(.downloadEnded, request: request),
                          .decision(.flightEnded, request: request)]
            }
            steps += [.decision(.diskTrimmed, request: -1), .decision(.memoryLookup, request: 2), .decision(.flight, request: 2),
                      .decision(.diskReadOriginal, request: 2)]
            // No memory at all (every lookup misses); a 100-byte disk trimmed to 70.
            return CacheSimulator.answers(
                trace, SimulationConfiguration(limits: CacheLimits(costLimit: 0), policy: .lru, disk: .init(byteLimit: 100)),
                observed: ObservedOrder(steps: steps)).answers
        }
        #expect(run(stored: 0) == [.origin, .origin, .disk])  // the estimates: 20 bytes, nothing trimmed
        #expect(run(stored: 60) == [.origin, .origin, .origin])  // 120 bytes live: URL 0's original was trimmed
    }

    @Test("an observed order written to disk reads back the same; a cut or foreign file is refused, naming the step")
    func file() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("observed-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let order = ObservedOrder(steps: [
            .decision(.memoryLookup, request: 0), .decision(.flight, request: 0), .event(0),
            .decision(.diskTrimmed, request: -1), .decision(.originalStored, request: 1, bytes: 12_345), .decision(.memoryLookup, request: 2),
        ])
        let path = directory + "/order.icbo"
        try ObservedOrderFile.write(order, requests: 3, to: path)
        let read = try ObservedOrderFile.read(path)
        #expect(read.order == order && read.requests == 3)

        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.dropLast(3).write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.malformed(path: path, reason: "its size does not match 6 steps")) {
            try ObservedOrderFile.read(path)
        }
        try ObservedOrderFile.write(order, requests: 2, to: path)  // request 2 of 2 does not exist
        #expect(throws: SimulationTraceFile.FileError.malformed(path: path, reason: "step 6 names request 2 of 2")) {
            try ObservedOrderFile.read(path)
        }
        try Data("{\"not\": \"an order\"}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: SimulationTraceFile.FileError.self) { try ObservedOrderFile.read(path) }
    }
}
