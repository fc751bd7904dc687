import ArgumentParser
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
        var job = SuiteJob()
        job.inputs = workloads.inputs
        job.suite.shard = sharding.shard
        if noReplay {
            job.suite.replay = nil
        } else {
            job.suite.replay?.requestLimit = replayRequests
            job.suite.replay?.originStore = store
        }
        job.baseline = baseline
        job.showsTables = output.verbose
        try await job.run(output: output.results)
    }
}
