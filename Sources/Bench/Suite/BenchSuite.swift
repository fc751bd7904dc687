import ImagePipeline
import CacheSimulation

/// What `imagecache-bench` runs with no arguments: on every dataset, the
/// default configuration by tier, the key strategies, the policies at a few
/// memory sizes with the offline bounds, miss-ratio curves, the memory-warning
/// reactions; then a short live replay of one dataset.
public struct BenchSuite: Sendable {
    public var policies: [EvictionPolicyKind] = EvictionPolicyKind.allCases
    public var curvePolicies: [EvictionPolicyKind] = [.lru, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU, .gdsf(missCost: .download)]
    public var memorySizes = ReplayDefaults.comparedMemorySizes
    /// nil: no live replay (its figures are timings, not gated exactly).
    public var replay: LiveReplayOptions? = {
        var options = LiveReplayOptions()
        options.requestLimit = 3_000
        return options
    }()
    /// Which dataset the live replay uses (the first one whose name starts with this).
    public var replayDataset = "vanilladin"

    public init() {}

    public func run(_ workloads: [RecordedWorkload], command: String, progress: ProgressLine = ProgressLine()) async throws -> BenchResults {
        var results = BenchResults(command: command)
        results.datasets = workloads.map(\.summary)

        let defaults = SimulationMatrix()
        results.simulations = defaults.run(workloads, progress: progress)

        var policyComparison = SimulationMatrix()
        policyComparison.policies = policies
        policyComparison.memorySizes = memorySizes
        results.simulations += policyComparison.run(workloads, progress: progress)

        results.keyComparisons = KeyComparison.run(workloads, strategies: CacheKeyStrategy.allStrategies, configuration: defaults, progress: progress)
        results.sweeps = MissRatioSweep.run(workloads, strategy: ReplayDefaults.keyStrategy, policies: curvePolicies, progress: progress)
        results.memoryWarnings = WarningComparison.run(
            workloads, sources: [.trace, .every(seconds: 60)], reactions: WarningReaction.standard, configuration: defaults, progress: progress)

        if let replay, let workload = workloads.first(where: { $0.name.hasPrefix(replayDataset) }) ?? workloads.first {
            results.replays = [try await LiveReplay.run(workload, options: replay, progress: progress)]
        }
        results.deriveFigures()
        return results
    }
}
