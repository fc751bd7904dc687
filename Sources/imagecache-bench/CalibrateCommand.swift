import ArgumentParser
import Bench

struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Measure this machine's decode costs from the live pipeline's own thumbnails, and save them for --device-costs.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Requests in flight at most while measuring.") var concurrency = 4
    @Option(help: "Directory where the origin keeps synthesised images.") var store = Recording.defaultStore
    @Option(name: [.short, .long], help: "The profile's file (JSON).") var output = "device-costs.json"

    func validate() throws {
        try OptionCheck.count(concurrency, "--concurrency", atLeast: 1, atMost: 10_000)
        try OptionCheck.library(job.validate)
    }

    var job: CalibrateJob {
        var job = CalibrateJob()
        job.inputs = workloads.inputs
        job.options.concurrency = concurrency
        job.options.originStore = store
        job.output = output
        return job
    }

    func run() async throws {
        let (profile, table) = try await job.run()
        print(table.render())
        print("profile: \(output) (\(profile.source))")
    }
}
