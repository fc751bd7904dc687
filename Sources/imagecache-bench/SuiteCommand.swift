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
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.count(replayRequests, "--replay-requests", atLeast: 1)
    }

    func run() async throws {
        let loaded = try workloads.load()
        var suite = BenchSuite()
        if noReplay {
            suite.replay = nil
        } else {
            suite.replay?.requestLimit = replayRequests
            suite.replay?.originStore = store
        }
        let results = try await suite.run(loaded, command: commandLine)
        let defaults = results.simulations.prefix(loaded.count)
        output.show("default configuration by tier (\(ReplayDefaults.policy), memory \(ByteSize.format(ReplayDefaults.memoryBytes)), disk 150MB, keys \(ReplayDefaults.keyStrategy))",
                    ReportTables.simulations(Array(defaults)))
        output.show("policies at \(suite.memorySizes.map(\.description).joined(separator: ", ")) with Belady and the PFOO-L bound",
                    ReportTables.simulations(Array(results.simulations.dropFirst(loaded.count))))
        output.show("key strategies", ReportTables.keys(results.keyComparisons))
        output.show("memory warnings", ReportTables.warnings(results.memoryWarnings))
        output.show("live replay", ReportTables.replays(results.replays))
        try output.finish(results)
    }
}
