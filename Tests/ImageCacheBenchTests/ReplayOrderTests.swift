import Bench
import CacheSimulation
import Foundation
import Testing
import Workloads

@Suite("A live replay asks in the app's order")
struct ReplayOrderTests {
    /// Eight images the app cancelled, then the same eight asked again, all at once: a
    /// relaunch's first screen, whose cells were reused before their downloads started.
    static func burst() throws -> String {
        let directory = BenchProcess.temporaryFile("burst").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/burst.jsonl"
        let writer = try TraceWriter(path: path, header: TraceHeader(app: "Crafted", modelVersion: "1", seed: 1, sessions: 1, generator: "test"))
        try writer.append(TraceEvent(time: 0, .session(1)))
        for round in 0 ..< 2 {
            for picture in 1 ... 8 {
                try writer.append(TraceEvent(time: 0, CraftedTrace.image(round * 8 + picture, "https://a.example/p/\(picture).jpg", content: UInt64(picture))))
            }
        }
        for picture in 1 ... 8 { try writer.append(TraceEvent(time: 1, .cancel(id: picture))) }
        try writer.close()
        return path
    }

    @Test("a burst reaches the pipeline in the order asked: a request the app cancels never joins the flight of one asked after it")
    func cancelledRequestsKeepTheirPlace() async throws {
        let trace = try Self.burst()
        defer { CraftedTrace.remove(trace) }
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        var options = LiveReplayOptions()
        options.originStore = store
        options.concurrency = 16
        let report = try await LiveReplay.run(try RecordedWorkload.load(path: trace), options: options)
        #expect(report.requests == 16 && report.failed == 0)
        // Each cancelled request asked first opens its own flight and is cancelled at its download;
        // made in a task of its own behind the rest, it would join the flight of its repeat.
        #expect(report.comparison.liveCancelled == 8, "\(report.comparison)")
        #expect(report.agrees)
    }
}
