import ArgumentParser
import Bench
import CacheSimulation

struct AppsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apps",
        abstract: "Each app's workload under its pipeline as shipped, with one defect fixed at a time, and under the fixed pipeline.",
        discussion: """
            The presets are pipeline files (presets/) read from the apps' documents (APPS.md): \
            \(((try? PresetLibrary.allAsShipped()) ?? []).map(\.name).joined(separator: ", ")); "fixed" is the library's pipeline \
            with the bench's defaults, trimming memory to half on a warning. A trace is run under the presets of the \
            app its header names; a mix of apps is skipped. Simulated on the whole trace with 10 requests in flight. \
            Then each app's pipeline as shipped, ported as written (My Market's coalescer with its defects; the others' \
            memory caches, disk folders named by their keys and re-encoded files), runs live against the loopback origin \
            on the first --live-sessions sessions of its trace, one request at a time, beside the simulator's preset of it.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Sessions of each app's trace its live port runs (0: none).") var liveSessions = 2
    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).") var store = Recording.defaultStore
    @Option(help: ArgumentHelp(
        "The phone the simulated apps run on (DEVICES.md): its warnings and ends of the app count in every row; none for a phone with memory to spare.",
        valueName: "none|class|limit=…"))
    var device = DeviceModel.appsDefault.name
    @Option(help: networkHelp) var network = NetworkProfile.suiteDefault.name
    @Option(help: deviceCostsHelp) var deviceCosts: String?
    @Option(help: arrivalsHelp) var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue
    @Option(help: "A pipeline file (docs/PIPELINES.md) run on each app's trace beside the app's own pipelines and the fixed one.")
    var pipeline: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.library { _ = try SettingParsing.device(device) }
        try OptionCheck.library { _ = try SettingParsing.network(network) }
        try OptionCheck.library { _ = try SettingParsing.arrivals(arrivals) }
        try OptionCheck.count(liveSessions, "--live-sessions", atLeast: 0, atMost: 1_000_000)
    }

    func run() async throws {
        var job = AppsJob()
        job.inputs = workloads.inputs
        job.liveSessions = liveSessions
        job.store = store
        job.device = device
        job.network = network
        job.deviceCosts = deviceCosts
        job.arrivals = arrivals
        job.pipeline = pipeline
        try await job.run(output: output.results)
    }
}
