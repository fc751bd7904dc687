import CacheSimulation
import ArgumentParser
import Foundation
import ImagePipeline
import Bench
import Workloads

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Drive the live pipeline (libvips, a real disk, HTTP to the loopback origin) with a trace, and check it agrees with simulate.")
    @OptionGroup var workloads: WorkloadOptions
    @Option(parsing: .unconditional, help: "Recorded time divided by this; 0 replays as fast as --concurrency allows.") var speed = 0.0
    @Option(parsing: .unconditional, help: "Requests in flight at most (about a screen of cells and their prefetches).") var concurrency = 16
    @Option(help: "Memory size.") var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description
    @Option(help: "Disk size, or none.") var disk = "150MB"
    @Option(help: "What the disk keeps: originals, thumbnails (re-encoded) or both.") var diskPolicy = ReplayDefaults.diskPolicy.rawValue
    @Option(parsing: .unconditional, help: "Replay only the first N sessions of each trace (whole sessions).") var sessions: Int?
    @Option(help: "Cancellations: recorded (at the download, as the simulator models them) or timed (after the recorded delay, racing the answer).")
    var cancellations = LiveReplayOptions.CancellationTiming.recorded.rawValue
    @Option(help: "Policy.") var policy = ReplayDefaults.policy.description
    @Option(help: "Stripes the memory cache is split into, each with its own lock (1 to 256).") var stripes = 1
    @Option(help: "Key strategy.") var keys = ReplayDefaults.keyStrategy.description
    @Option(help: "Reaction to memory warnings.") var reaction = "purge-all"
    @Option(parsing: .unconditional, help: "Median origin latency in milliseconds (log-normal).") var latency = 0.0
    @Option(parsing: .unconditional, help: "Share of origin responses that are faults (0–1).") var faults = 0.0
    @Option(help: "Disk writes: none (left to the kernel, as iOS caches do), file (fsync each, the library's crash-safe default), fileAndDirectory.")
    var diskSync = "none"
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
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.number(speed, "--speed", in: 0...1e6, "0 (as fast as possible) or a finite speed-up up to 10⁶")
        try OptionCheck.count(concurrency, "--concurrency", atLeast: 1, atMost: 10_000)
        try OptionCheck.count(stripes, "--stripes", atLeast: 1, atMost: 256)
        try OptionCheck.number(faults, "--faults", in: 0...1, "a share between 0 and 1")
        try OptionCheck.number(latency, "--latency", in: 0...60_000, "a median in milliseconds, 0 to 60000")
        guard DiskCache.SyncPolicy(rawValue: diskSync) != nil else { throw ValidationError("--disk-sync is none, file or fileAndDirectory") }
        guard LiveReplayOptions.CancellationTiming(rawValue: cancellations) != nil else {
            throw ValidationError("--cancellations is recorded or timed")
        }
        if let sessions { try OptionCheck.count(sessions, "--sessions", atLeast: 1, atMost: 1_000_000) }
        _ = try CacheOptions.diskPolicy(diskPolicy)
        if try CacheOptions.device(device) != nil, concurrency != 1 {
            throw ValidationError("--device replays one request at a time: add --concurrency 1")
        }
    }

    func run() async throws {
        try output.claim(inputs: workloads.inputPaths)
        if let saveOrder { try OutputFile.refuseOverwriting(saveOrder, inputs: workloads.inputPaths) }
        if let saveAnswers { try OutputFile.refuseOverwriting(saveAnswers, inputs: workloads.inputPaths) }
        let loaded = try workloads.load()
        guard saveOrder == nil || loaded.count == 1 else { throw ValidationError("--save-order records one trace's replay; give one trace") }
        guard saveAnswers == nil || loaded.count == 1 else { throw ValidationError("--save-answers records one trace's replay; give one trace") }
        var options = LiveReplayOptions()
        options.speed = speed
        options.concurrency = concurrency
        options.memory = try CacheOptions.size(memory)
        options.disk = try CacheOptions.diskSize(disk)
        options.diskPolicy = try CacheOptions.diskPolicy(diskPolicy)
        options.sessionLimit = sessions
        options.cancellations = LiveReplayOptions.CancellationTiming(rawValue: cancellations) ?? .recorded
        options.policy = try CacheOptions.policies(policy)[0]
        options.stripes = CacheStripes(stripes)
        options.keyStrategy = try CacheOptions.strategies(keys)[0]
        options.reaction = try CacheOptions.reaction(reaction)
        options.latencyMilliseconds = latency
        options.faultRate = faults
        options.diskSync = DiskCache.SyncPolicy(rawValue: diskSync) ?? .none
        options.originStore = store
        options.observedOrderPath = saveOrder
        options.answersPath = saveAnswers
        options.device = try CacheOptions.device(device)
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        for workload in loaded {
            results.replays.append(try await LiveReplay.run(workload, options: options))
        }
        output.show("replay", ReportTables.replays(results.replays))
        output.show("replay-agreement", ReportTables.replayAgreement(results.replays))
        if let device = options.device { output.show("on \(device)", ReportTables.replayDevices(results.replays)) }
        try output.finish(results)
        if requireAgreement, results.replays.contains(where: { !$0.agrees }) {
            let differing = results.replays.filter { !$0.agrees }.map { "\($0.trace): \($0.exact.differingRequests) of \($0.requests)" }
            FileHandle.standardError.write(Data(
                "replay: the simulator in observed order answered requests differently from live (\(differing.joined(separator: ", ")))\n".utf8))
            throw ExitCode.failure
        }
    }
}
