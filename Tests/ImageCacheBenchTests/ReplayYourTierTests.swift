import Bench
import CacheSimulation
import Foundation
import ImagePipeline
import PipelineTesting
import Synchronization
import Testing
import Workloads

@Suite("A live replay drives a memory tier of your own")
struct ReplayYourTierTests {
    @Test("every memory hit the replay counts is a hit in your tier, and every process gets a tier of its own")
    func replayDrivesYourTier() async throws {
        let store = BenchProcess.temporaryFile("store").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        let tiers = Mutex<[DictionaryImageCache]>([])
        var options = LiveReplayOptions()
        options.originStore = store
        options.concurrency = 1
        options.imageCache = { _ in
            let tier = DictionaryImageCache(limit: 40)
            tiers.withLock { $0.append(tier) }
            return tier
        }
        let report = try await LiveReplay.run(workload, options: options)
        let made = tiers.withLock { $0 }
        #expect(report.requests == 258 && report.failed == 0)
        #expect(report.answered + report.cancelled == report.requests)
        #expect(report.configuration.hasPrefix("your memory tier beside "))
        #expect(report.memoryHits > 0)
        #expect(made.reduce(0) { $0 + $1.hits } == report.memoryHits)
        // A process starts at the launch, at each relaunch, and on each new device after the first request.
        let restarts = workload.events.count { event in
            switch event.kind {
            case .relaunch: true
            case .newDevice: event.beforeRequest > 0
            case .memoryWarning, .invalidate: false
            }
        }
        #expect(restarts > 0)
        #expect(made.count == 1 + restarts)
    }
}
