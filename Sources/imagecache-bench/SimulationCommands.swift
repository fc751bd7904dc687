import ArgumentParser
import Bench
import CacheSimulation

struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Traces × policies × memory and disk sizes × key strategies × warning reactions, deterministically.",
        discussion: """
            Reports hits and byte hits per tier, origin fetches and bytes, wrong and stale images, evictions, and the gap to Belady \
            and the PFOO-L bound. Takes recorded traces (.jsonl, .jsonl.gz), binary simulation traces (.icbt, see synth-trace), and \
            libCacheSim's oracleGeneral, csv and txt traces or any CSV/TSV with --columns (see --trace-format).
            """)
    @OptionGroup var workloads: WorkloadOptions
    @OptionGroup var cache: CacheOptions
    @Flag(help: "Skip the offline bounds (Belady, PFOO-L).") var noBounds = false
    @Flag(help: ArgumentHelp(
        "libCacheSim's semantics, so figures compare with its: the requests `export` writes, no per-entry cap, no disk, no warnings.",
        discussion: "Recorded traces are replayed as the plain requests `export --keys` writes (the strategy --keys names): cancellations, offline spells, relaunches and invalidations are left out, as libCacheSim's traces cannot carry them. Overrides --max-entry, --disk and --warnings; add --objects for its object mode."))
    var libcachesim = false
    @Option(help: ArgumentHelp(
        "Run in the order a live replay took its decisions, from the file `replay --save-order` wrote.",
        discussion: "Give the one recorded trace that replay ran, with its --sessions or --requests, and the replay's configuration (memory, disk, policy, keys): the figures are then the live run's, request by request."))
    var observedOrder: String?
    @Option(help: ArgumentHelp(
        "Run the pipeline a pipeline file describes (presets/, docs/PIPELINES.md) on each trace, instead of a matrix.",
        discussion: "The file gives the keys, decode, memory, disk, loads in flight, coalescing and invalidations; --warnings, --device and --network give the run's environment. The matrix's options are refused beside it."))
    var pipeline: String?
    @OptionGroup var sharding: ShardOptions
    @OptionGroup var output: OutputOptions

    var job: SimulateJob {
        var job = SimulateJob()
        job.inputs = workloads.inputs
        job.settings = cache.settings
        job.bounds = !noBounds
        job.libcachesim = libcachesim
        job.observedOrder = observedOrder
        job.shard = sharding.shard
        job.pipeline = pipeline
        return job
    }

    func validate() throws {
        if pipeline != nil { try OptionCheck.notBeside("--pipeline", CacheOptions.pipelineSettings + ["--libcachesim", "--shard"]) }
        try OptionCheck.library(job.validate)
    }

    func run() throws { try job.run(output: output.results) }
}

struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Compare cache-key strategies: hit ratio, wrong and stale images, distinct keys, keys unusable as file names, colliding URLs.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "Key strategies (or all).") var keys = "all"
    @Option(help: "Memory size.") var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description
    @Option(help: "Disk size, or none.") var disk = CacheSettings.defaultDisk
    @Option(parsing: .unconditional, help: "Colliding URL pairs to show per strategy.") var examples = 3
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.count(examples, "--examples", atLeast: 0, atMost: 10_000)
    }

    func run() throws {
        var job = KeysJob()
        job.inputs = workloads.inputs
        job.settings.keys = keys
        job.settings.memory = memory
        job.settings.disk = disk
        job.examples = examples
        try job.run(output: output.results)
    }
}

struct SweepCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Miss-ratio curves: hit ratio against memory size per policy, with Belady and PFOO-L, as data and charts.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "Policies (or all).") var policy = SweepJob().policy
    @Option(help: "Key strategy.") var keys = ReplayDefaults.keyStrategy.description
    @Option(help: "Memory sizes (default: 1% to 100% of the working set).")
    var memory = SweepJob().memory
    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Estimate the curves from a spatial sample of the keys at this rate (0.01 = 1%): SHARDS for LRU, scaled-down simulation for the other policies and the bounds.",
        discussion: "For large traces: many times faster, within a small error for LRU and S3-FIFO; scaled-down SIEVE hits more than the whole cache would, so sample SIEVE at 0.1 or more; a sample of fewer than about 10,000 keys gives rough curves. BENCHMARKS.md has the measured speed-ups and errors; scripts/sampled-curves measures them again."))
    var sample: Double?
    @Option(help: ArgumentHelp(
        "How a sample's hit counts are corrected for the keys it drew: hit-model or shards.",
        discussion: "hit-model (the default): each key's expected hits (its requests after the first in each launch, times Che's probability that LRU holds it) as a control variate: a hot key the draw kept or missed moves the estimate only as far as the model says it hits. shards: SHARDS-adj, every request drawn too many or too few counted as a hit."))
    var sampleAdjustment: SampleAdjustment = .hitModel
    @Flag(help: "Skip the offline references (Belady, PFOO-L), the slowest part on large traces.") var noBounds = false
    @OptionGroup var sharding: ShardOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let sample { try OptionCheck.number(sample, "--sample", in: 1e-6...1, "a sampling rate above 0, at most 1") }
    }

    func run() throws {
        var job = SweepJob()
        job.inputs = workloads.inputs
        job.policy = policy
        job.keys = keys
        job.memory = memory
        job.sample = sample
        job.sampleAdjustment = sampleAdjustment
        job.bounds = !noBounds
        job.shard = sharding.shard
        try job.run(output: output.results)
    }
}

struct MemwarnCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memwarn",
        abstract: "Memory warnings from the trace or a schedule, compared across reactions: hit ratio lost, bytes downloaded again, time to recover.",
        discussion: "Recovery is the trace time until the memory tier holds 90% of the cost it held before the warning.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "Warning sources: trace, every:30s, above:64MB (comma-separated).") var warnings = MemwarnJob().warnings
    @Option(help: "Reactions (comma-separated).") var reaction = MemwarnJob().reactions
    @Option(help: "Policy.") var policy = ReplayDefaults.policy.description
    @Option(help: "Memory size.") var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description
    @Option(help: "Disk size, or none.") var disk = CacheSettings.defaultDisk
    @Option(help: ArgumentHelp("The phone the app runs on (DEVICES.md): its own warnings join the sources'.", valueName: "none|class|limit=…"))
    var device = "none"
    @Option(help: networkHelp) var network = "none"
    @Option(help: arrivalsHelp) var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue
    @Option(help: deviceCostsHelp) var deviceCosts: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.library { _ = try SettingParsing.network(network) }
        try OptionCheck.library { _ = try SettingParsing.arrivals(arrivals) }
    }

    func run() throws {
        var job = MemwarnJob()
        job.inputs = workloads.inputs
        job.settings.device = device
        job.settings.network = network
        job.settings.arrivals = arrivals
        job.settings.deviceCosts = deviceCosts
        job.settings.policy = policy
        job.settings.memory = memory
        job.settings.disk = disk
        job.warnings = warnings
        job.reactions = reaction
        try job.run(output: output.results)
    }
}

struct GateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gate",
        abstract: "Compare a results file with a baseline; exit 1 with a readable diff when a figure regressed past its threshold.")
    @Argument(help: "results.json of the run to judge.") var results: String
    @Option(help: "The baseline results.json.") var baseline: String
    @Flag(help: "Judge only the deterministic figures (hit ratios, wrong images, bytes), as CI does.") var deterministicOnly = false
    @Option(parsing: .unconditional, help: "Allowed relative slowdown of timings (0.5 = 50%).") var timingThreshold = 0.5
    @Flag(help: "Write the run's figures as the new baseline instead of comparing (after a deliberate change).")
    var updateBaseline = false
    @Flag(help: "Print the verdict as JSON (passed, compared, regressions, improvements, new figures) instead of text.")
    var json = false
    @Flag(help: "When another command made the baseline, compare the figures both runs have instead of refusing.")
    var sharedFiguresOnly = false

    var job: GateJob {
        var job = GateJob()
        job.results = results
        job.baseline = baseline
        job.thresholds.includesTimings = !deterministicOnly
        job.thresholds.timingRelative = timingThreshold
        job.thresholds.comparesSharedFiguresOnly = sharedFiguresOnly
        job.updatesBaseline = updateBaseline
        job.json = json
        return job
    }

    func validate() throws {
        try OptionCheck.number(timingThreshold, "--timing-threshold", in: 0...1_000, "a relative slowdown, 0 (none) or more")
        try OptionCheck.library(job.validate)
    }

    func run() throws { try job.run() }
}

struct SynthTraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth-trace",
        abstract: "Write a synthetic Zipf trace in the binary simulation format (.icbt), for simulator throughput runs.")
    @Option(parsing: .unconditional, help: "Requests, 1 to \(SimulationTrace.maximumSyntheticRequests) (the trace is made in memory).") var requests = 10_000_000
    @Option(parsing: .unconditional, help: "Distinct objects, 1 to \(SimulationTrace.maximumSyntheticObjects).") var objects = 1_000_000
    @Option(parsing: .unconditional, help: "Zipf exponent.") var alpha = 0.8
    @Option(help: "Seed: any whole number from 0 to 2^64−1.") var seed: UInt64 = 1
    @Option(name: [.short, .long], help: "File to write.") var output: String

    func validate() throws {
        try OptionCheck.count(requests, "--requests", atLeast: 1, atMost: SimulationTrace.maximumSyntheticRequests)
        try OptionCheck.count(objects, "--objects", atLeast: 1, atMost: SimulationTrace.maximumSyntheticObjects)
        try OptionCheck.number(alpha, "--alpha", in: 0...10, "a Zipf exponent, 0 to 10")
    }

    func run() throws {
        let trace = SimulationTrace.zipf(objects: objects, alpha: alpha, requests: requests, seed: seed)
        try SimulationTraceFile.write(trace, to: output)
        print("wrote \(output): \(requests) requests over \(objects) objects (Zipf \(alpha), seed \(seed))")
    }
}
