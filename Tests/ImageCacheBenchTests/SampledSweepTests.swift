import Foundation
import Testing
@testable import Bench
import CacheSimulation
import ImagePipeline

@Suite("sweep --sample")
struct SampledSweepTests {
    @Test("at rate 1 the sampled sweep (SHARDS for LRU, scaled-down simulation for the rest, bounds) gives the exact sweep's points")
    func rateOneIsExact() throws {
        let inputs = try ["vanilladin-small.jsonl", "mymarket.jsonl.gz"].map {
            SimulationMatrix.Input.recorded(try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent($0).path))
        }
        let policies: [EvictionPolicyKind] = [.lru, .sieve, .s3fifo(moveToMainThreshold: 1)]
        let sizes: [ByteSize] = [.fraction(0.02), .fraction(0.2), .bytes(4 << 20)]
        let exact = MissRatioSweep.run(inputs, strategy: ReplayDefaults.keyStrategy, policies: policies, sizes: sizes)
        let sampled = MissRatioSweep.run(inputs, strategy: ReplayDefaults.keyStrategy, policies: policies, sizes: sizes, sample: 1)
        #expect(exact.count == inputs.count * sizes.count * (policies.count + 2))
        #expect(sampled.count == exact.count)
        for (estimate, truth) in zip(sampled, exact) {
            #expect(estimate.sampleRate == 1 && truth.sampleRate == nil)
            #expect(estimate.trace == truth.trace && estimate.policy == truth.policy && estimate.memoryBytes == truth.memoryBytes)
            #expect(estimate.hitRatio == truth.hitRatio, "\(truth.trace) \(truth.policy) \(truth.memoryBytes)")
            #expect(estimate.byteHitRatio == truth.byteHitRatio || (estimate.byteHitRatio.isNaN && truth.byteHitRatio.isNaN))
        }
    }

    @Test("sampled, the optimal references are corrected as the policies are: no scaled-down policy beats Belady on any dataset")
    func referencesCorrectedAlike() throws {
        let inputs = try ["articleproject", "headlines", "mymarket", "picterest", "vanilladin"].map {
            SimulationMatrix.Input.recorded(try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\($0).jsonl.gz").path))
        }
        let policies: [EvictionPolicyKind] = [.fifo, .clock, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU]
        let points = MissRatioSweep.run(inputs, strategy: ReplayDefaults.keyStrategy, policies: policies, sample: 0.1)
        let belady = Dictionary(uniqueKeysWithValues: points.filter { $0.policy == "belady" }.map { ("\($0.trace) \($0.memoryBytes)", $0.hitRatio) })
        let policyPoints = points.filter { $0.policy != "belady" && $0.policy != "pfoo-l" }
        #expect(policyPoints.count == inputs.count * MissRatioSweep.defaultFractions.count * policies.count)
        for point in policyPoints {
            let bound = try #require(belady["\(point.trace) \(point.memoryBytes)"])
            #expect(point.hitRatio <= bound + 1e-12, "\(point.trace) \(point.policy) at \(point.memoryBytes): \(point.hitRatio) > Belady \(bound)")
        }
    }

    @Test("a sample of few keys is run but said to be rough, on stderr, naming the trace and its counts")
    func roughSampleNoted() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["sweep", trace, "--sample", "0.5", "--policy", "lru", "--no-bounds", "--no-files", "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("the sample of vanilladin-small.jsonl holds") && output.stderr.contains("the curves are rough"))
        #expect(try !BenchCommandsTests.json(output).sweeps.isEmpty)
    }
}
