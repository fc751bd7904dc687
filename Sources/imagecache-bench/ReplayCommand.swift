import ArgumentParser
import Bench
import CacheSimulation
import ImagePipeline

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Drive the live pipeline (libvips, a real disk, HTTP to the loopback origin) with a trace, and check it agrees with simulate.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Recorded time divided by this; 0 replays as fast as --concurrency allows.") var speed = 0.0
    @Option(parsing: .unconditional, help: "Requests in flight at most (about a screen of cells and their prefetches).") var concurrency = 16
    @Option(help: "Memory size.") var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description
    @Option(help: "Disk size, or none.") var disk = CacheSettings.defaultDisk
    @Option(help: "What the disk keeps: originals, thumbnails (re-encoded) or both.") var diskPolicy = ReplayDefaults.diskPolicy.rawValue
    @Option(parsing: .unconditional, help: "Replay only the first N sessions of each trace (whole sessions).") var sessions: Int?
    @Option(help: "Cancellations: recorded (at the download, as the simulator models them) or timed (after the recorded delay, racing the answer).")
    var cancellations = LiveReplayOptions.CancellationTiming.recorded
    @Option(help: "Policy.") var policy = ReplayDefaults.policy.description
    @Option(help: "Stripes the memory cache is split into, each with its own lock (1 to 256).") var stripes = 1
    @Option(help: "Key strategy.") var keys = ReplayDefaults.keyStrategy.description
    @Option(help: "Reaction to memory warnings.") var reaction = "purge-all"
    @Option(parsing: .unconditional, help: "Median origin latency in milliseconds (log-normal).") var latency = 0.0
    @Option(parsing: .unconditional, help: "Share of origin responses that are faults (0–1).") var faults = 0.0
    @Option(help: "Disk writes: none (left to the kernel, as iOS caches do), file (fsync each, the library's crash-safe default), fileAndDirectory.")
    var diskSync = DiskCache.SyncPolicy.none
    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).") var store = Recording.defaultStore
    @Flag(help: "Exit 1 unless the simulator, run in the order the live pipeline took its decisions, answers every request as live did.")
    var requireAgreement = false
    @Option(help: "Write the order the pipeline took its decisions in to this file (one trace), for simulate --observed-order.")
    var saveOrder: String?
    @Option(help: "Write per request where live, the simulator in observed order and the in-flight model answered it to this CSV file (one trace).")
    var saveAnswers: String?
    @Option(help: ArgumentHelp(
        "The phone the app runs on (DEVICES.md): warnings and ends of the app where its footprint says; one request at a time.",
        valueName: "none|class|limit=…"))
    var device = "none"
    @Option(help: ArgumentHelp(
        "A phone's network for live and the model: none, a preset or rtt=…,down=…. The origin paces its answers to it; the model keeps a clock on it.",
        discussion: "Requests go back to back. The report sets live's time to image beside the clocked model's, per tier, with MAPE and Spearman's ρ (docs/TIME.md)."))
    var network = "none"
    @Option(help: deviceCostsHelp) var deviceCosts: String?
    @Option(help: "Who carries --network's downlink live: origin (its pacing, anywhere) or kernel (tbf in a network namespace; root).")
    var shaping = LinkShaping.Method.origin
    @Option(help: "Replay a pipeline file (docs/PIPELINES.md) instead of the cache options; a field live cannot take is refused by name.")
    var pipeline: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.number(speed, "--speed", in: 0...1e6, "0 (as fast as possible) or a finite speed-up up to 10⁶")
        try OptionCheck.count(concurrency, "--concurrency", atLeast: 1, atMost: 10_000)
        try OptionCheck.count(stripes, "--stripes", atLeast: 1, atMost: 256)
        try OptionCheck.number(faults, "--faults", in: 0...1, "a share between 0 and 1")
        try OptionCheck.number(latency, "--latency", in: 0...60_000, "a median in milliseconds, 0 to 60000")
        if let sessions { try OptionCheck.count(sessions, "--sessions", atLeast: 1, atMost: 1_000_000) }
        if pipeline != nil { try OptionCheck.notBeside("--pipeline", ["--memory", "--disk", "--disk-policy", "--policy", "--keys", "--reaction", "--concurrency"]) }
        try OptionCheck.library(job.validate)
    }

    var job: ReplayJob {
        var job = ReplayJob()
        job.inputs = workloads.inputs
        job.settings.memory = memory
        job.settings.disk = disk
        job.settings.diskPolicy = diskPolicy
        job.settings.policy = policy
        job.settings.stripes = stripes
        job.settings.keys = keys
        job.settings.reaction = reaction
        job.settings.device = device
        job.settings.network = network
        job.settings.deviceCosts = deviceCosts
        job.options.shaping = shaping
        job.options.speed = speed
        job.options.concurrency = concurrency
        job.options.sessionLimit = sessions
        job.options.cancellations = cancellations
        job.options.latencyMilliseconds = latency
        job.options.faultRate = faults
        job.options.diskSync = diskSync
        job.options.originStore = store
        job.options.observedOrderPath = saveOrder
        job.options.answersPath = saveAnswers
        job.requiresAgreement = requireAgreement
        job.pipeline = pipeline
        return job
    }

    func run() async throws { try await job.run(output: output.results) }
}

extension LiveReplayOptions.CancellationTiming: ExpressibleByArgument {}
extension LinkShaping.Method: ExpressibleByArgument {}
