import ArgumentParser
import Bench
import CacheSimulation

struct RecommendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recommend",
        abstract: "Recommend cache settings for an app from its traces: memory size, key strategy, policy, per-entry cap, warning reaction and disk size, each with the figure behind it.",
        discussion: """
            Memory is the knee of the memory curve (sizes doubling from 256KiB until everything fits; the knee is the \
            smallest whose doubling adds under half a point of hits), capped by the budget; the key is the best that never shows another URL's picture; policy, per-entry cap and warning \
            reaction are the best at that size with the recorded warnings; disk is the knee of either tier's curve up to \
            --disk-budget. Prints the settings for this library, Nuke, Kingfisher and SDWebImage, and what each cannot express.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "Most memory the app may give decoded images (64MB, 256MiB).") var memoryBudget: String
    @Option(help: "Most disk the app may give downloaded images; without it, no disk size is recommended.") var diskBudget: String?
    @Option(help: ArgumentHelp(
        "The phone the app runs on (DEVICES.md): no memory size at which it ends the app is recommended.",
        valueName: "none|class|limit=…"))
    var device = "none"
    @Option(help: ArgumentHelp(
        "What each choice optimises: hits, p95 (time to image, needs --network) or bytes (downloaded).",
        valueName: "hits|p95|bytes"))
    var optimize = RecommendationGoal.hits.rawValue
    @Option(help: networkHelp) var network = "none"
    @Option(help: arrivalsHelp) var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue
    @Option(help: deviceCostsHelp) var deviceCosts: String?
    @Option(help: ArgumentHelp(
        "Write the recommended settings as a pipeline file (docs/PIPELINES.md) at this new path.",
        discussion: "simulate --pipeline FILE, with this run's --device, --network, --arrivals and --device-costs, gives the figures the 'together' row reports."))
    var writePipeline: String?
    @Option(help: "Your pipeline now, a pipeline file (docs/PIPELINES.md), measured beside the recommendation on the same device and network.")
    var pipeline: String?
    @OptionGroup var output: OutputOptions

    var job: RecommendJob {
        var job = RecommendJob()
        job.inputs = workloads.inputs
        job.memoryBudget = memoryBudget
        job.diskBudget = diskBudget
        job.device = device
        job.goal = optimize
        job.network = network
        job.arrivals = arrivals
        job.deviceCosts = deviceCosts
        job.writePipeline = writePipeline
        job.pipeline = pipeline
        return job
    }

    func validate() throws { try OptionCheck.library(job.validate) }

    func run() throws { try job.run(output: output.results) }
}
