import CacheSimulation
import Foundation
import ImagePipeline
import Testing
import Workloads

/// The offline references are bounds only if no policy ever beats them: checked on every
/// committed dataset and on HARs without bodies (whose zero costs once put PFOO-L below LRU).
@Suite("Offline bounds hold on every dataset")
struct BoundsInvariantTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
    static let datasets = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".jsonl.gz") && $0 != "all.jsonl.gz" }.sorted()
    static let policies = ["lru", "fifo", "clock", "sieve", "s3fifo", "w-tinylfu", "gdsf", "arc", "2q", "lirs"].compactMap(EvictionPolicyKind.init(name:))

    @Test("PFOO-L's object bound is at least every policy's memory hit ratio at the same size", arguments: datasets)
    func spaceTimeBound(_ name: String) throws {
        let workload = try RecordedWorkload.load(path: Self.folder.appendingPathComponent(name).path)
        let trace = workload.simulationTrace(strategy: ReplayDefaults.keyStrategy)
        let scoped = trace.scopedToLaunches()
        for share in [0.02, 0.2] {
            let limits = CacheLimits(costLimit: max(1, Int(Double(trace.memoryFootprint) * share)))
            let bound = OfflineBounds.spaceTimeBound(scoped, limits: limits).objects.hitRatio
            for policy in Self.policies {
                let result = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: policy, warnings: .none))
                #expect(result.hitRatio <= bound + 1e-9, "\(name) \(policy) at \(share): \(result.hitRatio) above the bound \(bound)")
            }
        }
    }

    @Test("Belady is at least every policy's hit ratio when every object weighs one", arguments: datasets)
    func beladyOnObjects(_ name: String) throws {
        let workload = try RecordedWorkload.load(path: Self.folder.appendingPathComponent(name).path)
        let trace = workload.simulationTrace(strategy: ReplayDefaults.keyStrategy)
        var objects = SimulationTrace()
        var slots: [Slot: Slot] = [:]
        for index in 0..<trace.count {
            let key = trace.keys[index]
            let slot = slots[key] ?? objects.addKey(fingerprint: trace.fingerprints[Int(key)])
            slots[key] = slot
            objects.append(key: slot, cost: 1, size: 1, time: trace.times[index])
        }
        for count in [objects.keyCount / 50, objects.keyCount / 5].map({ max($0, 1) }) {
            let limits = CacheLimits(costLimit: count, maxEntryFraction: 1)
            let belady = OfflineBounds.belady(objects, limits: limits).hitRatio
            for policy in Self.policies {
                let result = CacheSimulator.run(objects, SimulationConfiguration(limits: limits, policy: policy, warnings: .none))
                #expect(result.hitRatio <= belady + 1e-9, "\(name) \(policy) at \(count) objects: \(result.hitRatio) above Belady's \(belady)")
            }
        }
    }
}
