import ArgumentParser
import Bench
import CacheSimulation
import ImagePipeline

/// The traces a command runs on.
struct WorkloadOptions: ParsableArguments {
    @Argument(help: "Trace files (.jsonl or .jsonl.gz). Default: every .jsonl.gz in ./datasets.")
    var traces: [String] = []

    @Option(parsing: .unconditional, help: "Use only the first N requests of each trace.")
    var requests: Int?

    @Flag(help: "Count every object of a libCacheSim trace as size 1 (its object mode): sizes then count objects.")
    var objects = false

    @Flag(help: "Accept a trace with no events (refused by default: it is usually a cut file).")
    var allowEmpty = false

    @Option(help: ArgumentHelp(
        "How to read the traces: \(TraceInputs.Format.allCases.map(\.rawValue).joined(separator: ", ")).",
        discussion: "Default: by the file: .icbt and oracleGeneral by their names or first bytes; .csv and .tsv (libCacheSim's time,obj_id,obj_size) and .txt (an object id a line) by their names; anything else is a recorded trace (.jsonl, .jsonl.gz)."))
    var traceFormat: TraceInputs.Format?

    @Option(help: "Columns of a csv, tsv or txt trace, from 1: time=1,key=2,size=3 (key is required; without time, requests are a second apart; without size, every object weighs 1).")
    var columns: String?

    @Option(help: ArgumentHelp(
        "Pixels to assume for pictures of unknown size (WxH), as in a HAR exported without bodies.",
        discussion: "Without it a recorded trace holding such pictures is refused: each would cost nothing in memory. `import har` estimates what it can (the URL's size parameters, the response's length); this fills the rest."))
    var assumePixels: String?

    @Option(help: "The unit of a csv or tsv trace's time column: \(DelimitedTraceFormat.TimeUnit.allCases.map(\.rawValue).joined(separator: ", ")).")
    var timeUnit: DelimitedTraceFormat.TimeUnit = .s

    /// What the options name, for the library to read.
    var inputs: TraceInputs {
        var inputs = TraceInputs()
        inputs.traces = traces
        inputs.requests = requests
        inputs.objects = objects
        inputs.allowsEmpty = allowEmpty
        inputs.format = traceFormat
        inputs.columns = columns
        inputs.assumePixels = assumePixels
        inputs.timeUnit = timeUnit
        return inputs
    }

    func validate() throws {
        if let requests { try OptionCheck.count(requests, "--requests", atLeast: 1, atMost: OptionCheck.maximumRequests) }
        try OptionCheck.library(inputs.validate)
    }
}

/// The cache settings a simulation matrix spans; lists are comma-separated.
/// `--device-costs`, as every command that takes it explains it.
let deviceCostsHelp = ArgumentHelp(
    "A device profile (calibrate's JSON) the clock takes decode and disk costs from, in place of this machine's defaults (docs/TIME.md).",
    valueName: "file")

/// `--arrivals`, as every command that takes it explains it.
let arrivalsHelp = ArgumentHelp(
    "With --network, when requests arrive: recorded (at their trace times) or back-to-back (each as soon as the app has a place for it, as replay --speed 0 sends them).",
    valueName: "recorded|back-to-back")

/// `--network`, as every command that takes it explains it.
let networkHelp = ArgumentHelp(
    "The network the images come over: none, a preset (\(NetworkProfile.presets.map(\.name).joined(separator: ", "))) or rtt=150,down=1.6mbit[,loss=0.01][,connections=6|h2].",
    discussion: "Each run keeps a clock: joins and landings follow from time, and each request is timed from its trace time to its image, p50/p95 by tier, on that network and this machine's decode and disk costs (docs/TIME.md).")

struct CacheOptions: ParsableArguments {
    @Option(help: "Eviction policies (\(EvictionPolicyKind.allCases.map(\.description).joined(separator: ", ")), or all).")
    var policy = ReplayDefaults.policy.description

    @Option(help: "Memory sizes: 64MB, 1.5GiB, 800KiB, or a share of the working set (10%).")
    var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description

    @Option(help: "Disk sizes as for --memory, or none.")
    var disk = CacheSettings.defaultDisk

    @Option(help: "Largest entry the memory tier takes, as a share of its size (Nuke's 10%; 100% for none, as libCacheSim).")
    var maxEntry = "10%"

    @Option(help: "What the disk keeps: originals, thumbnails (re-encoded) or both.")
    var diskPolicy = ReplayDefaults.diskPolicy.rawValue

    @Option(help: "Key strategies (\(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", ")), or all).")
    var keys = ReplayDefaults.keyStrategy.description

    @Option(help: "Reactions to memory warnings: purge-all, trim-to-50%, trim-idle-30s, ignore.")
    var reaction = "purge-all"

    @Option(help: "Where warnings come from: trace, none, every:30s, above:64MB.")
    var warnings = "trace"

    @Flag(help: "Model a pipeline that never invalidates (edited pictures are then served stale).")
    var ignoreInvalidations = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Requests in flight together, as an app loading a screen at once (0: each lands before the next).",
        discussion: "A miss's thumbnail reaches the tiers, oldest first, once more than N/3 later misses and joins have come or sooner when the window is full; a request for a thumbnail in flight joins it. `replay --concurrency N` is compared with this model. With --network, time decides instead: a thumbnail lands when it is ready, and N is the app's limit on requests waiting for images (0: none)."))
    var inFlight = 0

    @Option(help: ArgumentHelp(
        "Stripes the memory tier is split into, each with its own lock and share of the limits (1 to 256).",
        discussion: "A striped MemoryCache lets threads work on different keys at once; keys go to stripes by fingerprint, as live."))
    var stripes = 1

    @Option(help: ArgumentHelp(
        "The phone the app runs on (recorded traces; DEVICES.md): none, a class (iphone-3gb), or limit=1400MiB[,baseline=…][,warning=80%][,critical=90%].",
        discussion: "The footprint (the app's own, decoded images held and being decoded) brings warnings and ends the app past the limit."))
    var device = "none"

    @Option(help: ArgumentHelp(
        networkHelp.abstract + " Or recorded: each trace on the network fitted to the fetch times it kept (a HAR's), each host at its own round trip.",
        discussion: networkHelp.discussion, valueName: "none|preset|rtt=…,down=…|recorded"))
    var network = "none"

    @Option(help: arrivalsHelp) var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue

    @Option(help: deviceCostsHelp) var deviceCosts: String?

    /// The options a pipeline file gives instead (`--pipeline`).
    static let pipelineSettings = [
        "--policy", "--memory", "--disk", "--max-entry", "--disk-policy", "--keys", "--reaction", "--ignore-invalidations", "--in-flight", "--stripes",
    ]

    func validate() throws {
        try OptionCheck.givenOnce(["--policy", "--memory", "--disk", "--max-entry", "--disk-policy", "--keys", "--reaction", "--warnings", "--device", "--network", "--arrivals"])
        if network.lowercased() != SettingParsing.recordedNetwork { try OptionCheck.library { _ = try SettingParsing.network(network) } }
        try OptionCheck.library { _ = try SettingParsing.arrivals(arrivals) }
        try OptionCheck.count(inFlight, "--in-flight", atLeast: 0, atMost: 10_000)
        try OptionCheck.count(stripes, "--stripes", atLeast: 1, atMost: 256)
    }

    /// What the options name, for the library to read.
    var settings: CacheSettings {
        var settings = CacheSettings()
        settings.policy = policy
        settings.memory = memory
        settings.disk = disk
        settings.maxEntry = maxEntry
        settings.diskPolicy = diskPolicy
        settings.keys = keys
        settings.reaction = reaction
        settings.warnings = warnings
        settings.ignoresInvalidations = ignoreInvalidations
        settings.inFlight = inFlight
        settings.stripes = stripes
        settings.device = device
        settings.network = network
        settings.arrivals = arrivals
        settings.deviceCosts = deviceCosts
        return settings
    }
}

/// Where results go.
struct OutputOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "Directory for results.json, CSV, report.md and charts (default: results/<timestamp>).")
    var output: String?

    @Flag(help: "Print results.json to stdout instead of tables.")
    var json = false

    @Flag(help: "Print Markdown tables (for pull requests) instead of plain ones.")
    var markdown = false

    @Flag(help: "Write no files.")
    var noFiles = false

    @Flag(help: "Print every table to the terminal too (the default run prints its summary; the tables are in the results folder).")
    var verbose = false

    func validate() throws {
        if json, markdown { throw ValidationError("--json and --markdown both choose what is printed; give one") }
        if noFiles, output != nil { throw ValidationError("--no-files and --output contradict each other; give one") }
    }

    /// What the options name, for the library to write.
    var results: ResultsOutput {
        var results = ResultsOutput()
        results.directory = output
        results.json = json
        results.markdown = markdown
        results.noFiles = noFiles
        return results
    }
}

extension DelimitedTraceFormat.TimeUnit: ExpressibleByArgument {}
extension SampleAdjustment: ExpressibleByArgument {}
extension TraceInputs.Format: ExpressibleByArgument {}
