import ImagePipeline
import CacheSimulation

/// What `imagecache-bench` runs with no arguments: on every dataset, the
/// default configuration by tier and its time to image on a phone's network, the key strategies, the policies at a few
/// memory sizes with the offline bounds, miss-ratio curves, the memory-warning
/// reactions, the apps as shipped against the fixed pipeline; then a short
/// live replay of one dataset.
public struct BenchSuite: Sendable {
    /// The policies an app would deploy; the reference variants are checked against libCacheSim
    /// (`scripts/crosscheck-libcachesim`), not set beside them.
    public var policies: [EvictionPolicyKind] = EvictionPolicyKind.deployable
    public var curvePolicies: [EvictionPolicyKind] = [.lru, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU, .gdsf(missCost: .download)]
    public var memorySizes = ReplayDefaults.comparedMemorySizes
    /// The network the default configuration's runs are timed on (Lighthouse's default mobile profile).
    public var network: NetworkProfile? = .suiteDefault
    /// nil: no live replay (its figures are timings, not gated exactly).
    public var replay: LiveReplayOptions? = {
        var options = LiveReplayOptions()
        options.requestLimit = 3_000
        return options
    }()
    /// Which dataset the live replay uses (the first one whose name starts with this).
    public var replayDataset = "vanilladin"
    /// Only this part of the suite: its units are the datasets, each with all its sections
    /// (and the live replay with the dataset it replays).
    public var shard: Shard?

    public init() {}

    /// Every section, dataset by dataset in the order given (the default
    /// configuration's row first among a dataset's simulations), so shards of
    /// consecutive datasets concatenate into the whole run.
    public func run(_ all: [RecordedWorkload], command: String, progress: ProgressLine = ProgressLine()) async throws -> BenchResults {
        var results = BenchResults(command: command)
        let workloads = Array(all[shard.units(of: all.count)])
        results.datasets = workloads.map(\.summary)

        let defaults = SimulationMatrix()
        results.simulations = defaults.run(workloads, progress: progress)
        if let network {
            // Beside the untimed row, not in its place: on a clock, repeats of an image still on
            // its way join it, so its hits are not comparable with the policies' rows.
            var timed = defaults
            timed.network = network
            results.simulations += timed.run(workloads, progress: progress)
        }

        var policyComparison = SimulationMatrix()
        policyComparison.policies = policies
        policyComparison.memorySizes = memorySizes
        results.simulations += policyComparison.run(workloads, progress: progress)

        results.keyComparisons = KeyComparison.run(workloads, strategies: CacheKeyStrategy.allStrategies, configuration: defaults, progress: progress)
        results.sweeps = MissRatioSweep.run(workloads, strategy: ReplayDefaults.keyStrategy, policies: curvePolicies, progress: progress)
        results.memoryWarnings = WarningComparison.run(
            workloads, sources: [.trace, .every(seconds: 60)], reactions: WarningReaction.standard, configuration: defaults, progress: progress)
        results.apps = try AppComparison.run(workloads, network: network, progress: progress)
        results.libraries = try LibraryComparison.run(workloads, network: network, progress: progress)

        let replayed = all.firstIndex { $0.name.hasPrefix(replayDataset) } ?? (all.isEmpty ? nil : 0)
        if let replay, let replayed, shard.units(of: all.count).contains(replayed) {
            results.replays = [try await LiveReplay.run(all[replayed], options: replay, progress: progress)]
        }
        results.orderByDataset(workloads.map(\.name))
        results.deriveFigures()
        return results
    }
}

extension BenchResults {
    /// Each section's rows grouped by dataset in the order `names` gives, keeping their order within a dataset.
    mutating func orderByDataset(_ names: [String]) {
        let rank = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func ordered<Row>(_ rows: [Row], _ trace: (Row) -> String) -> [Row] {
            rows.enumerated().sorted { (rank[trace($0.element)] ?? .max, $0.offset) < (rank[trace($1.element)] ?? .max, $1.offset) }.map(\.element)
        }
        simulations = ordered(simulations, \.trace)
        keyComparisons = ordered(keyComparisons, \.trace)
        sweeps = ordered(sweeps, \.trace)
        memoryWarnings = ordered(memoryWarnings, \.trace)
        apps = apps.map { ordered($0, \.trace) }
        libraries = libraries.map { ordered($0, \.trace) }
    }
}
