import ArgumentParser
import Bench

struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure this machine's decode and disk read costs from the live pipeline's own work, and save them for --device-costs.",
        discussion: "Replays the first \(CalibrateJob.defaultRequests) requests of each trace unless --requests says otherwise.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Requests in flight at most while measuring (1 to 10000).") var concurrency = 4
    @Option(help: ArgumentHelp(
        "The network the origin paces its answers to while the decodes are timed: a preset, rtt=…,down=…, or none.",
        discussion: "Unpaced (none), this machine's own origin and HTTP client answer as fast as they can and take the cores the decodes need.",
        valueName: "preset|rtt=…,down=…|none"))
    var network = CalibrateJob.defaultNetwork?.name ?? "none"
    @Option(help: "Directory where the origin keeps synthesised images.") var store = Recording.defaultStore
    @Option(name: [.short, .long], help: "The profile's file (JSON).") var output = "device-costs.json"

    func job() throws -> CalibrateJob {
        var job = CalibrateJob()
        job.inputs = workloads.inputs
        (job.options.concurrency, job.options.originStore, job.output) = (concurrency, store, output)
        job.options.network = try SettingParsing.network(network)
        return job
    }

    func validate() throws { try OptionCheck.library { try job().validate() } }

    func run() async throws {
        let (profile, table) = try await job().run()
        print(table.render() + "\nprofile: \(output) (\(profile.source))")
    }
}
