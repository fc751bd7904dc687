import Foundation
import Testing
import CacheEngine
@testable import CacheSimulation
import ImagePipeline
import Workloads

@Suite("A cache of your own, replayed")
struct CacheReplayTests {
    static let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
    static let traces = ["articleproject.jsonl.gz", "headlines.jsonl.gz", "mymarket.jsonl.gz", "picterest.jsonl.gz", "vanilladin.jsonl.gz"]

    @Test(
        "a MemoryCache behind ReplayableCache gets the simulator's figures, built-in or custom policy",
        arguments: [EvictionPolicyKind.lru, .arc, .gdsf(missCost: .download), MRUTestPolicy.custom])
    func replayEqualsSimulation(_ kind: EvictionPolicyKind) throws {
        let limits = CacheLimits(costLimit: 24 << 20)
        let pressure = MemoryPressurePolicy(warning: .trimToFraction(0.5), critical: .purgeAll)
        for name in Self.traces {
            let workload = try RecordedWorkload.load(path: Self.datasets.appendingPathComponent(name).path)
            var cache = ReplayableMemoryCache(.init(limits: limits, policy: kind), pressure: pressure)
            let replayed = CacheReplay.run(workload, keys: CacheKeyStrategy(.normalized, includesProcessing: true), through: &cache, name: kind.description)
            let simulated = CacheSimulator.run(
                workload.simulationTrace(strategy: CacheKeyStrategy(.normalized, includesProcessing: true)),
                SimulationConfiguration(
                    limits: limits, policy: kind, pressure: pressure, warnings: .trace, disk: nil, honoursInvalidations: false))
            #expect(replayed.requests == workload.requests.count)
            #expect(replayed.hits > 0, "\(name)")
            #expect(replayed.hits == simulated.hits, "\(name) \(kind)")
            #expect(replayed.byteHits == simulated.byteHits, "\(name) \(kind)")
            #expect(replayed.wrongImages == simulated.wrongImages && replayed.staleImages == simulated.staleImages, "\(name) \(kind)")
            #expect(replayed.offlineMisses == simulated.offlineMisses, "\(name) \(kind)")
            #expect(replayed.cancelledTransfers == simulated.cancelledTransfers, "\(name) \(kind)")
            #expect(replayed.bytesRequested == simulated.bytesRequested && replayed.unservedBytes == simulated.unservedBytes)
            #expect(replayed.warnings.count == simulated.warnings.count, "\(name)")
        }
    }

    @Test("a cache keyed by the last path component shows other URLs' pictures, and the replay counts them")
    func wrongImagesCounted() throws {
        let workload = try RecordedWorkload.load(path: Self.datasets.appendingPathComponent("articleproject.jsonl.gz").path)
        var unbounded = ReplayableMemoryCache(.init(limits: CacheLimits(costLimit: .max)), pressure: .init(warning: .ignore, critical: .ignore))
        let byName = CacheReplay.run(workload, keys: CacheKeyStrategy(.lastPathComponent), through: &unbounded, name: "lastPathComponent")
        var exact = ReplayableMemoryCache(.init(limits: CacheLimits(costLimit: .max)), pressure: .init(warning: .ignore, critical: .ignore))
        let byURL = CacheReplay.run(workload, keys: CacheKeyStrategy(.normalized, includesProcessing: true), through: &exact, name: "normalized")
        #expect(byName.wrongImages > 0)
        #expect(byURL.wrongImages == 0)
        #expect(byName.hits > byURL.hits)
    }
}
