import Foundation
import Testing
@testable import Bench
import CacheSimulation
import ImagePipeline

@Suite("recommend: settings from a workload's curves, each with its figure, and as code for four libraries")
struct RecommendTests {
    @Test("the knee is the smallest size within half a point of the best up to the budget, past flat and falling doublings; sizes double until everything fits or the budget")
    func knee() {
        func curve(_ points: [(Int, Double)]) -> [Recommendation.CurvePoint] { points.map { Recommendation.CurvePoint(bytes: $0, hitRatio: $1, bytesDownloaded: 0) } }
        let rising = curve([(1, 0.10), (2, 0.30), (4, 0.39), (8, 0.393), (16, 0.40)])
        #expect(SettingsRecommender.knee(rising) == 16)  // 8 is 0.7 point below the best
        #expect(SettingsRecommender.knee(Array(rising.prefix(2))) == 2)  // still climbing: the largest
        // A flat stretch, then a climb (a per-entry cap letting pictures in): never stop at the flat.
        let flatThenClimb = curve([(1, 0.136), (2, 0.136), (4, 0.137), (8, 0.20), (16, 0.574), (32, 0.576)])
        #expect(SettingsRecommender.knee(flatThenClimb) == 16)
        // A dip: the best lies past it.
        let dipping = curve([(1, 0.30), (2, 0.35), (4, 0.33), (8, 0.459), (16, 0.46)])
        #expect(SettingsRecommender.knee(dipping) == 8)
        #expect(SettingsRecommender.dips(dipping).map(\.bytes) == [4])
        #expect(SettingsRecommender.sizes(upTo: 64 << 20, footprint: 3 << 20) == [256 << 10, 512 << 10, 1 << 20, 2 << 20, 4 << 20])
        #expect(SettingsRecommender.sizes(upTo: 1 << 40, footprint: 3 << 20) == SettingsRecommender.sizes(upTo: 64 << 20, footprint: 3 << 20))
        #expect(SettingsRecommender.sizes(upTo: 1_500_000, footprint: 1 << 30) == [256 << 10, 512 << 10, 1 << 20, 1_500_000])
        #expect(SettingsRecommender.sizes(upTo: 100_000, footprint: 1 << 30) == [100_000])
    }

    @Test("the recommendation follows the curve, not the budget: 64MB and 1TB give the same sizes on Vanilladin")
    func budgetIndependent() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin.jsonl.gz").path)
        let small = try SettingsRecommender.recommend([workload], memoryBudget: 64_000_000, diskBudget: 1_000_000_000)
        let huge = try SettingsRecommender.recommend([workload], memoryBudget: 1 << 40, diskBudget: 1 << 40)
        #expect(small.memoryBytes == huge.memoryBytes && small.diskBytes == huge.diskBytes)
        #expect(small.memoryBytes < 64_000_000)
        #expect(huge.memoryCurve.count <= 20)  // doublings stop once everything fits
    }

    @Test("too little reuse is said, not answered with figures of nothing")
    func tooLittleReuse() async throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        #expect(throws: RecommendationError.self) { try SettingsRecommender.recommend([workload.prefix(1)], memoryBudget: 64 << 20, diskBudget: nil) }
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["recommend", trace, "--requests", "1", "--memory-budget", "64MB", "--no-files"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("1 request, of which 0 ask again for a URL"), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test("on a dataset: each choice is the best measured, the knee holds, and the code carries the numbers", arguments: ["vanilladin", "mymarket"])
    func onDataset(_ name: String) throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("\(name).jsonl.gz").path)
        let budget = 64 << 20
        let r = try SettingsRecommender.recommend([workload], memoryBudget: budget, diskBudget: 200_000_000)
        #expect(r.memoryBytes <= budget)
        let kneeIndex = try #require(r.memoryCurve.firstIndex { $0.bytes == r.memoryBytes })
        let kneeHit = r.memoryCurve[kneeIndex].hitRatio
        // The knee is within half a point of the best size up to the budget; every smaller size is not.
        let best = r.memoryCurve.map(\.hitRatio).max()!
        #expect(kneeHit >= best - Recommendation.kneeGain)
        #expect(r.memoryCurve.prefix(kneeIndex).allSatisfy { $0.hitRatio < best - Recommendation.kneeGain })
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
        #expect(r.reasons.map(\.setting) == ["goal", "memory", "keys", "policy", "per-entry cap", "memory warning", "time to live", "disk", "together"])

        #expect(r.snippets.map(\.library) == ["ImagePipeline (this package)", "Nuke", "Kingfisher", "SDWebImage"])
        for snippet in r.snippets {
            #expect(snippet.code.contains(String(r.memoryBytes)) && snippet.code.contains(String(disk)), "\(snippet.library)")
        }
        let nuke = r.snippets[1]
        #expect(nuke.cannotExpress.contains { $0.hasPrefix("policy") } == (r.policy != "lru"))
        #expect(r.snippets[0].cannotExpress.isEmpty)
        #expect(r.snippets[0].code.contains("policy: " + Recommendation.swift(r.policy)))
    }

    @Test("optimising p95 on a network: the knee within 5 % of the lowest p95, each choice the lowest measured (or the preferred within 1 %); p95 without a network refused")
    func optimisingTime() throws {
        func curve(_ points: [(Int, Double)]) -> [Recommendation.CurvePoint] {
            points.map { Recommendation.CurvePoint(bytes: $0, hitRatio: 0, p95Milliseconds: $1, bytesDownloaded: 0) }
        }
        // 8 is 5.6 % above the best (1,000 ms at 16), 16 the first within 5 %.
        #expect(SettingsRecommender.knee(curve([(1, 3_000), (2, 1_500), (4, 1_200), (8, 1_056), (16, 1_000), (32, 1_000)]), goal: .p95) == 16)
        #expect(SettingsRecommender.knee(curve([(1, 3_000), (2, 1_040), (4, 1_000)]), goal: .p95) == 2)

        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("mymarket.jsonl.gz").path)
        let lte = try NetworkProfile(parsing: "lte")
        let r = try SettingsRecommender.recommend([workload], memoryBudget: 64 << 20, diskBudget: nil, goal: .p95, network: lte)
        #expect(r.goal == .p95 && r.network == "lte" && r.reasons.first?.value == "p95 on lte")
        let p95s = r.memoryCurve.map { $0.p95Milliseconds! }
        let kneeIndex = try #require(r.memoryCurve.firstIndex { $0.bytes == r.memoryBytes })
        #expect(p95s[kneeIndex] <= p95s.min()! * 1.05 && p95s.prefix(kneeIndex).allSatisfy { $0 > p95s.min()! * 1.05 })
        for (chosen, candidates) in [(r.policy, r.policies), (String(r.maxEntryFraction), r.entryCaps), (r.warningReaction, r.warningReactions)] {
            let lowest = candidates.compactMap(\.p95Milliseconds).min()!
            #expect(candidates.first { $0.name == chosen }!.p95Milliseconds! <= lowest * 1.01, "\(chosen)")
        }
        // The curve's point is a run on the clock at that size.
        let trace = workload.simulationTrace(strategy: CacheKeyStrategy(name: r.keyStrategy)!)
        let direct = CacheSimulator.run(trace, SimulationConfiguration(
            limits: CacheLimits(costLimit: r.memoryBytes), policy: .lru, warnings: .none, network: lte))
        #expect(direct.timeToImage?.overall.p95 == p95s[kneeIndex])
        #expect(ReportTables.recommendationCurves(r).render().contains("image p95 ms on lte"))

        #expect(throws: RecommendationError.self) {
            try SettingsRecommender.recommend([workload], memoryBudget: 64 << 20, diskBudget: nil, goal: .p95)
        }
        var job = RecommendJob()
        job.memoryBudget = "64MB"
        job.goal = "p95"
        #expect(throws: UsageError.self) { try job.validate() }
        job.goal = "fastest"
        #expect(throws: UsageError.self) { try job.validate() }
        job.goal = "bytes"
        try job.validate()
    }

    @Test("the recommendation as a pipeline file: simulate --pipeline gives the 'together' figures exactly, on a network and off")
    func pipelineFile() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        for network in [nil, try NetworkProfile(parsing: "lte")] {
            let r = try SettingsRecommender.recommend([workload], memoryBudget: 16 << 20, diskBudget: 64 << 20, network: network)
            let whole = try #require(r.whole)
            let file = try PipelineFile.parse(try PipelineFile.text(of: r.pipeline(named: "mine")), path: "mine.yaml")
            #expect(file.memoryLimits.costLimit == r.memoryBytes && file.policy.description == r.policy && file.disk?.byteLimit == r.diskBytes)
            var run = PipelineSimulation(pipeline: file)
            run.network = network
            let row = try #require(run.run([.recorded(workload)]).first)
            #expect(row.result.combinedHitRatio == whole.hitRatio && row.result.bytesDownloaded == whole.bytesDownloaded)
            #expect(row.result.timeToImage?.overall.p95 == whole.p95Milliseconds && (network == nil) == (whole.p95Milliseconds == nil))
            #expect(r.reasons.last?.setting == "together")
        }
    }

    @Test("recommend times every run with the device costs and arrivals it is given: the curves and the whole, as simulate --pipeline runs the file")
    func clockTerms() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        let lte = try NetworkProfile(parsing: "lte")
        var slow = DeviceCosts.thisMachine
        slow.decodeFixedNanoseconds = 50_000_000
        let plain = try SettingsRecommender.recommend([workload], memoryBudget: 16 << 20, diskBudget: 64 << 20, network: lte)
        let r = try SettingsRecommender.recommend(
            [workload], memoryBudget: 16 << 20, diskBudget: 64 << 20, network: lte, costs: slow, arrivals: .backToBack)
        // Every curve's point waits for slower decodes: 50 ms more at p95, at least.
        let points = zip(plain.memoryCurve, r.memoryCurve).filter { $0.0.bytes == $0.1.bytes }
        #expect(!points.isEmpty && points.allSatisfy { $1.p95Milliseconds! >= $0.p95Milliseconds! + 50 })
        let whole = try #require(r.whole)
        var run = PipelineSimulation(pipeline: try PipelineFile.parse(try PipelineFile.text(of: r.pipeline(named: "mine")), path: "mine.yaml"))
        (run.network, run.deviceCosts, run.arrivals) = (lte, slow, .backToBack)
        let row = try #require(run.run([.recorded(workload)]).first)
        #expect(row.result.timeToImage?.overall.p95 == whole.p95Milliseconds && row.result.combinedHitRatio == whole.hitRatio)
    }

    @Test("recommend --write-pipeline writes a new file that simulate --pipeline runs, and never over one that exists")
    func writePipelineCommand() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let path = BenchProcess.temporaryFile("pipeline.yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let written = try await BenchProcess.run(["recommend", trace, "--memory-budget", "16MB", "--write-pipeline", path, "--json", "--no-files"])
        #expect(written.status == 0, "\(written.stderr)")
        let whole = try #require(try BenchCommandsTests.json(written).recommendation?.whole)
        let simulated = try await BenchProcess.run(["simulate", trace, "--pipeline", path, "--json", "--no-files"])
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let row = try #require(try BenchCommandsTests.json(simulated).simulations.first)
        #expect(row.pipeline == URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent && row.result.combinedHitRatio == whole.hitRatio)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let again = try await BenchProcess.run(["recommend", trace, "--memory-budget", "16MB", "--write-pipeline", path, "--no-files"])
        #expect(again.status == 2 && again.stderr.contains("exists"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)
        // The matrix's options are the file's to give; a bad file is refused at its line, exit 2.
        let beside = try await BenchProcess.run(["simulate", trace, "--pipeline", path, "--policy", "sieve", "--no-files"])
        #expect(beside.status == 2 && beside.stderr.contains("--policy is not taken beside --pipeline"))
        let bad = BenchProcess.temporaryFile("bad.yaml").path
        defer { try? FileManager.default.removeItem(atPath: bad) }
        try "name: bad\nmemory:\n  limit: 1MB\n  polcy: lru\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try await BenchProcess.run(["simulate", trace, "--pipeline", bad, "--no-files"])
        #expect(refused.status == 2 && refused.stderr.contains("\(bad):4: unknown field memory.polcy"), "\(refused.stderr)")
    }

    @Test("recommend --pipeline measures your pipeline as simulate --pipeline runs it, on the same phone and network, beside the recommendation")
    func yourPipeline() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let nuke = CraftedTrace.datasets.deletingLastPathComponent().appendingPathComponent("presets/nuke-default.yaml").path
        let environment = ["--device", "iphone-3gb", "--network", "lte"]
        let recommended = try await BenchProcess.run(
            ["recommend", trace, "--memory-budget", "16MB", "--pipeline", nuke, "--json", "--no-files"] + environment)
        #expect(recommended.status == 0, "\(recommended.stderr)")
        let r = try #require(try BenchCommandsTests.json(recommended).recommendation)
        let current = try #require(r.current)
        let simulated = try await BenchProcess.run(["simulate", trace, "--pipeline", nuke, "--json", "--no-files"] + environment)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let row = try #require(try BenchCommandsTests.json(simulated).simulations.first)
        #expect(current.name == "nuke-default" && current.hitRatio == row.result.combinedHitRatio)
        #expect(current.bytesDownloaded == row.result.bytesDownloaded && current.p95Milliseconds == row.result.timeToImage?.overall.p95)
        #expect(r.reasons.last?.setting == "yours" && r.reasons.last?.because.contains("the recommendation") == true)
        let missing = try await BenchProcess.run(["recommend", trace, "--memory-budget", "16MB", "--pipeline", "/nonexistent/mine.yaml", "--no-files"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/mine.yaml"), "\(missing.stderr)")
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
