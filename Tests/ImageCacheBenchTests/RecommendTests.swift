import Foundation
import Testing
@testable import Bench
import CacheSimulation
import ImagePipeline

@Suite("recommend: settings from a workload's curves, each with its figure, and as code for four libraries")
struct RecommendTests {
    @Test("the knee is the smallest size within a point of the largest's hit ratio")
    func knee() {
        let curve = [(1, 0.10), (2, 0.30), (4, 0.395), (8, 0.40), (16, 0.404)].map { Recommendation.CurvePoint(bytes: $0, hitRatio: $1) }
        #expect(SettingsRecommender.knee(curve) == 4)
        #expect(SettingsRecommender.knee(Array(curve.prefix(2))) == 2)
        #expect(SettingsRecommender.sizes(upTo: 64 << 20).first == 1 << 20)  // 1/64 of 64 MiB
        #expect(SettingsRecommender.sizes(upTo: 10 << 20) == [1 << 20, 1_310_720, 2_621_440, 3_932_160, 5 << 20, 7_864_320, 10 << 20])
    }

    @Test("on a dataset: each choice is the best measured, the knee holds, and the code carries the numbers", arguments: ["vanilladin", "mymarket"])
    func onDataset(_ name: String) throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\(name).jsonl.gz").path)
        let budget = 64 << 20
        let r = SettingsRecommender.recommend([workload], memoryBudget: budget, diskBudget: 200_000_000)
        #expect(r.memoryBytes <= budget && r.memoryCurve.last?.bytes == budget)
        let kneeHit = try #require(r.memoryCurve.first { $0.bytes == r.memoryBytes }).hitRatio
        #expect(kneeHit >= r.memoryCurve.last!.hitRatio - Recommendation.kneeTolerance)
        #expect(r.memoryCurve.filter { $0.bytes < r.memoryBytes }.allSatisfy { $0.hitRatio < r.memoryCurve.last!.hitRatio - Recommendation.kneeTolerance })
        // The curve is the simulator's: its points are what a run at that size gives.
        let trace = workload.simulationTrace(strategy: CacheKeyStrategy(name: r.keyStrategy)!)
        let direct = CacheSimulator.run(trace, SimulationConfiguration(limits: CacheLimits(costLimit: r.memoryBytes), policy: .lru, warnings: .none))
        #expect(direct.hitRatio == kneeHit)

        let key = try #require(r.keyStrategies.first { $0.name == r.keyStrategy })
        #expect(key.wrongImages == 0 && r.keyStrategy.hasSuffix("+processing"))
        let bestPolicy = r.policies.map(\.hitRatio).max()!
        #expect(r.policies.first { $0.name == r.policy }!.hitRatio >= bestPolicy - 0.001)
        #expect(r.warningReactions.first { $0.name == r.warningReaction }!.hitRatio == r.warningReactions.map(\.hitRatio).max()
                || r.warningReaction == "trim-to-50%")
        let disk = try #require(r.diskBytes)
        #expect(disk <= 200_000_000)
        #expect(r.reasons.map(\.setting) == ["memory", "keys", "policy", "per-entry cap", "memory warning", "time to live", "disk"])

        #expect(r.snippets.map(\.library) == ["ImagePipeline (this package)", "Nuke", "Kingfisher", "SDWebImage"])
        for snippet in r.snippets {
            #expect(snippet.code.contains(String(r.memoryBytes)) && snippet.code.contains(String(disk)), "\(snippet.library)")
        }
        let nuke = r.snippets[1]
        #expect(nuke.cannotExpress.contains { $0.hasPrefix("policy") } == (r.policy != "lru"))
        #expect(r.snippets[0].cannotExpress.isEmpty)
        #expect(r.snippets[0].code.contains("policy: " + Recommendation.swift(r.policy)))
    }

    @Test("the command prints the recommendation as JSON and refuses a budget without a unit")
    func command() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["recommend", trace, "--memory-budget", "16MB", "--json", "--no-files"])
        #expect(output.status == 0, "\(output.stderr)")
        let recommendation = try #require(try BenchCommandsTests.json(output).recommendation)
        #expect(recommendation.memoryBytes <= 16_000_000 && recommendation.diskBytes == nil && recommendation.traces == ["vanilladin-small.jsonl"])
        let refused = try await BenchProcess.run(["recommend", trace, "--memory-budget", "64"])
        #expect(refused.status == 2 && refused.stderr.contains("not a size"))
    }
}
