import CacheSimulation

/// `sweep`: miss-ratio curves per policy, with the offline bounds, whole or sampled.
public struct SweepJob: Sendable {
    public var inputs = TraceInputs()
    public var policy = "lru,fifo,clock,sieve,s3fifo,w-tinylfu,gdsf"
    public var keys = ReplayDefaults.keyStrategy.description
    public var memory = MissRatioSweep.defaultFractions.map { ByteSize.fraction($0).description }.joined(separator: ",")
    /// A spatial sample of the keys at this rate, for large traces.
    public var sample: Double?
    public var sampleAdjustment = SampleAdjustment.hitModel
    public var bounds = true
    public var shard: Shard?

    public init() {}

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputs.inputPaths)
        let loaded = try inputs.loadInputs()
        let sizes = try SettingParsing.list(memory, option: "--memory").map { try SettingParsing.size($0) }
        try shard?.check(traceNames: loaded.map(\.name), units: loaded.count * sizes.count, unitName: "(trace, memory size) points")
        let strategies = try SettingParsing.strategies(keys)
        guard strategies.count == 1 else { throw UsageError("--keys: sweep draws its curves under one key strategy; give one") }
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.compactMap {
            if case .recorded(let workload) = $0 { workload.summary } else { nil }
        }
        results.sweeps = MissRatioSweep.run(
            loaded, strategy: strategies[0], policies: try SettingParsing.policies(policy), sizes: sizes,
            shard: shard, sample: sample, sampleAdjustment: sampleAdjustment, bounds: bounds)
        output.show(
            sample.map {
                "sweep, sampled at \(ByteSize.fraction($0)) of the keys (SHARDS for LRU, scaled-down simulation for the rest; "
                    + "\(sampleAdjustment.rawValue) adjustment)"
            } ?? "sweep",
            ReportTables.sweep(results.sweeps))
        shard?.record(in: &results)
        try output.finish(results)
    }
}
