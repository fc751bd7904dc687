import Foundation
import CacheSimulation
import ImagePipeline
import Workloads

/// `replay`: the live pipeline driven by each trace, checked against the simulator.
public struct ReplayJob: Sendable {
    public var inputs = TraceInputs()
    /// The one configuration replayed: each list names one value.
    public var settings = CacheSettings()
    /// How the replay runs; its cache fields come from `settings`.
    public var options = LiveReplayOptions()
    /// Fail unless the simulator, in the observed order, answers every request as live did.
    public var requiresAgreement = false
    /// A pipeline file replayed in place of the cache `settings` (`--pipeline`).
    public var pipeline: String?

    public init() {}

    /// `options` with the cache `settings` name, each a single value.
    public func replayOptions() throws -> LiveReplayOptions {
        let matrix = try settings.matrix()
        var options = options
        options.memory = try Self.one(matrix.memorySizes, "--memory")
        options.disk = try Self.one(matrix.diskSizes, "--disk")
        options.diskPolicy = matrix.diskPolicy
        options.policy = try Self.one(matrix.policies, "--policy")
        options.stripes = matrix.stripes
        options.keyStrategy = try Self.one(matrix.strategies, "--keys")
        options.reaction = try Self.one(matrix.reactions, "--reaction")
        options.device = matrix.device
        options.network = matrix.network
        options.deviceCosts = matrix.deviceCosts
        if let pipeline { try options.replay(try PipelineFile.read(pipeline), from: pipeline) }
        return options
    }

    private static func one<T>(_ values: [T], _ option: String) throws -> T {
        guard values.count == 1 else { throw UsageError("\(option): replay runs one configuration; give one value") }
        return values[0]
    }

    /// The checks that need nothing read.
    public func validate() throws {
        try inputs.validate()
        let options = try replayOptions()
        if options.device != nil, options.concurrency != 1 {
            throw UsageError("--device replays one request at a time: add --concurrency 1")
        }
        if options.shaping == .kernel, options.network == nil { throw UsageError("--shaping kernel shapes a --network; give one") }
        if options.network != nil, options.speed != 0 {
            throw UsageError("--network times the model back to back, as --speed 0 sends requests: drop --speed")
        }
    }

    /// Replays every trace and shows the runs on `output`; fails when agreement is required and missing.
    public func run(output: ResultsOutput) async throws {
        let options = try replayOptions()
        if options.shaping == .kernel, let network = options.network, !KernelShaping.isInside {
            // This replay runs again inside a shaped network namespace, which writes the results.
            return try KernelShaping.runInside(network)
        }
        let paths = inputs.inputPaths + (pipeline.map { [$0] } ?? [])
        try output.claim(inputs: paths)
        for file in [options.observedOrderPath, options.answersPath].compactMap({ $0 }) {
            try OutputFile.refuseOverwriting(file, inputs: paths)
        }
        let loaded = try inputs.load()
        guard options.observedOrderPath == nil || loaded.count == 1 else { throw UsageError("--save-order records one trace's replay; give one trace") }
        guard options.answersPath == nil || loaded.count == 1 else { throw UsageError("--save-answers records one trace's replay; give one trace") }
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        for workload in loaded {
            results.replays.append(try await LiveReplay.run(workload, options: options))
        }
        output.show("replay", ReportTables.replays(results.replays))
        output.show("replay-agreement", ReportTables.replayAgreement(results.replays))
        if options.network != nil { output.show("replay-time", ReportTables.replayTimes(results.replays)) }
        if let device = options.device { output.show("on \(device)", ReportTables.replayDevices(results.replays)) }
        try output.finish(results)
        let differing = results.replays.filter { !$0.agrees }
        if requiresAgreement, !differing.isEmpty {
            throw Disagreement(runs: differing.map { "\($0.trace): \($0.exact.differingRequests) of \($0.requests)" })
        }
    }

    /// The simulator in observed order answered some requests differently from live.
    public struct Disagreement: Error, CustomStringConvertible {
        public let runs: [String]
        public var description: String {
            "replay: the simulator in observed order answered requests differently from live (\(runs.joined(separator: ", ")))"
        }
    }
}
