import ArgumentParser
import Bench
import CacheSimulation

struct AppsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Each app's workload under its pipeline as shipped, with one defect fixed at a time, and under the fixed pipeline.",
        discussion: """
            The presets are read from the apps' documents (../shared/apps.md): \
            \(AppPreset.allAsShipped.map(\.name).joined(separator: ", ")); "fixed" is the library's pipeline \
            with the bench's defaults, trimming memory to half on a warning. A trace is run under the presets of the \
            app its header names; a mix of apps is skipped. Simulated on the whole trace, one request at a time.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let loaded = try workloads.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        results.apps = AppComparison.run(loaded)
        output.show("the apps as shipped, one defect fixed at a time, and the fixed pipeline", ReportTables.apps(results.apps ?? []))
        output.show("what each defect cost (against the app as shipped)", ReportTables.appDefects(results.apps ?? []))
        try output.finish(results)
    }
}
