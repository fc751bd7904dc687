import CacheSimulation
import ArgumentParser
import Foundation
import Bench

struct SuiteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suite",
        abstract: "The default run: every dataset through the default configuration, key strategies, policies with bounds, miss-ratio curves, memory warnings, and a short live replay.")
    @OptionGroup var workloads: WorkloadOptions
    @Flag(help: "Skip the live replay (CI gates the deterministic figures only).") var noReplay = false
    @Option(parsing: .unconditional, help: "Requests of the live replay.") var replayRequests = 3_000
    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).") var store = Recording.defaultStore
    @Option(help: "Judge the run's deterministic figures against this baseline results.json, as gate --deterministic-only does: the verdict goes into the summary and report.md, and a regression exits 1.")
    var baseline: String?
    @OptionGroup var sharding: ShardOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.count(replayRequests, "--replay-requests", atLeast: 1, atMost: StressScenario.maximumRequests)
    }

    func run() async throws {
        try output.claim(inputs: workloads.inputs.inputPaths)
        let loaded = try workloads.inputs.load()
        try sharding.check(traceNames: loaded.map(\.name), units: loaded.count, unitName: "datasets")
        var suite = BenchSuite()
        suite.shard = sharding.shard
        if noReplay {
            suite.replay = nil
        } else {
            suite.replay?.requestLimit = replayRequests
            suite.replay?.originStore = store
        }
        var results = try await suite.run(loaded, command: commandLine)
        if output.verbose { showTables(results, suite) }
        sharding.record(in: &results)
        if let baseline {
            results.deriveFigures()
            var thresholds = Gate.Thresholds()
            thresholds.includesTimings = false
            results.gate = .init(baseline: baseline, try Gate.compare(results, baseline: try Gate.load(baseline), thresholds: thresholds))
        }
        try output.finish(results)
        if let gate = results.gate, !gate.regressions.isEmpty { throw ExitCode.failure }
    }

    /// Every table, for `--verbose`: without it the terminal shows the summary and the tables are in the files.
    private func showTables(_ results: BenchResults, _ suite: BenchSuite) {
        // Each dataset's simulations start with the default configuration's row.
        var seen = Set<String>()
        let isDefault = results.simulations.map { seen.insert($0.trace).inserted }
        output.show("default configuration by tier (\(ReplayDefaults.policy), memory \(ByteSize.format(ReplayDefaults.memoryBytes)), disk 150MB, keys \(ReplayDefaults.keyStrategy))",
                    ReportTables.simulations(zip(results.simulations, isDefault).filter { $0.1 }.map(\.0)))
        output.show("policies at \(suite.memorySizes.map(\.description).joined(separator: ", ")) with Belady and the PFOO-L bound",
                    ReportTables.simulations(zip(results.simulations, isDefault).filter { !$0.1 }.map(\.0)))
        output.show("key strategies", ReportTables.keys(results.keyComparisons))
        output.show("memory warnings", ReportTables.warnings(results.memoryWarnings))
        output.show("what each app's defects cost (imagecache-bench apps has every run)", ReportTables.appDefects(results.apps ?? []))
        output.show("live replay", ReportTables.replays(results.replays))
    }
}
