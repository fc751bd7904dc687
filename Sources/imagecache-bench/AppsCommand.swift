import ArgumentParser
import Bench
import CacheSimulation

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Each app's workload under its pipeline as shipped, with one defect fixed at a time, and under the fixed pipeline.",
        discussion: """
            The presets are read from the apps' documents (../shared/apps.md): \
            \(AppPreset.allAsShipped.map(\.name).joined(separator: ", ")); "fixed" is the library's pipeline \
            with the bench's defaults, trimming memory to half on a warning. A trace is run under the presets of the \
            app its header names; a mix of apps is skipped. Simulated on the whole trace with 10 requests in flight. \
            Then My Market's coalescer, ported as written, runs live against the loopback origin on the first \
            --live-sessions sessions of the My Market trace, one request at a time, beside the simulator's model of it.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Sessions of the My Market trace its live coalescer runs (0: none).") var liveSessions = 2
    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).") var store = Recording.defaultStore
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.count(liveSessions, "--live-sessions", atLeast: 0, atMost: 1_000_000)
    }

    func run() async throws {
        let loaded = try workloads.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        results.apps = AppComparison.run(loaded)
        output.show("the apps as shipped, one defect fixed at a time, and the fixed pipeline", ReportTables.apps(results.apps ?? []))
        output.show("what each defect cost (against the app as shipped)", ReportTables.appDefects(results.apps ?? []))
        if liveSessions > 0, let market = loaded.first(where: { AppPreset.asShipped(app: $0.header.app).first == AppPreset.myMarket }) {
            results.myMarketLive = try await MyMarketReplay.live(market.prefix(sessions: liveSessions), store: store)
            output.show("My Market's coalescer live on the loopback origin, beside the simulator", ReportTables.myMarketLive(results.myMarketLive))
        }
        try output.finish(results)
    }
}
