import CacheSimulation

/// `suite`, the default run: every dataset through the default configuration, key strategies,
/// policies with bounds, curves, memory warnings and a short live replay; judged against a
/// baseline when one is given.
public struct SuiteJob: Sendable {
    public var inputs = TraceInputs()
    public var suite = BenchSuite()
    /// A baseline results.json the deterministic figures are judged against.
    public var baseline: String?
    /// Every table on the terminal, not only the summary.
    public var showsTables = false

    public init() {}

    /// A regression against the baseline.
    public struct Regressed: Error, CustomStringConvertible {
        public let count: Int
        public var description: String { "suite: \(count) figure\(count == 1 ? "" : "s") regressed against the baseline" }
    }

    public func run(output: ResultsOutput) async throws {
        try output.claim(inputs: inputs.inputPaths)
        let loaded = try inputs.load()
        try suite.shard?.check(traceNames: loaded.map(\.name), units: loaded.count, unitName: "datasets")
        var results = try await suite.run(loaded, command: ResultsOutput.commandLine)
        if showsTables { showTables(results, output) }
        suite.shard?.record(in: &results)
        if let baseline {
            results.deriveFigures()
            var thresholds = Gate.Thresholds()
            thresholds.includesTimings = false
            results.gate = .init(baseline: baseline, try Gate.compare(results, baseline: try Gate.load(baseline), thresholds: thresholds))
        }
        try output.finish(results)
        if let gate = results.gate, !gate.regressions.isEmpty { throw Regressed(count: gate.regressions.count) }
    }

    private func showTables(_ results: BenchResults, _ output: ResultsOutput) {
        // Each dataset's simulations start with the default configuration's row.
        var seen = Set<String>()
        let isDefault = results.simulations.map { seen.insert($0.trace).inserted }
        output.show("default configuration by tier (\(ReplayDefaults.policy), memory \(ByteSize.format(ReplayDefaults.memoryBytes)), disk \(CacheSettings.defaultDisk), keys \(ReplayDefaults.keyStrategy))",
                    ReportTables.simulations(zip(results.simulations, isDefault).filter { $0.1 }.map(\.0)))
        output.show("policies at \(suite.memorySizes.map(\.description).joined(separator: ", ")) with Belady and the PFOO-L bound",
                    ReportTables.simulations(zip(results.simulations, isDefault).filter { !$0.1 }.map(\.0)))
        output.show("key strategies", ReportTables.keys(results.keyComparisons))
        output.show("memory warnings", ReportTables.warnings(results.memoryWarnings))
        output.show("what each app's defects cost (imagecache-bench apps has every run)", ReportTables.appDefects(results.apps ?? []))
        output.show("live replay", ReportTables.replays(results.replays))
    }
}
