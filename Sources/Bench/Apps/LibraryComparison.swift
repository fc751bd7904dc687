import ImagePipeline
import CacheSimulation

/// One library's defaults (a library preset) on one trace, beside the best settings given the
/// same memory: the fixed pipeline, with the memory the defaults held at their peak and the
/// defaults' disk, under whichever deployable policy hits most, or the defaults themselves when
/// none of those hits more.
public struct LibraryComparisonRow: Codable, Sendable, Equatable {
    public var trace: String
    /// The preset: "nuke-default", "kingfisher-default", …
    public var library: String
    /// The most decoded image bytes the defaults held at once: the tuned settings' memory limit.
    public var memoryBytes: Int
    public var defaults: Figures
    public var tuned: Figures
    /// The fixed pipeline's policy in the tuned settings; nil when the defaults are the best settings
    /// (the tuned figures are then the defaults').
    public var tunedPolicy: String?

    public struct Figures: Codable, Sendable, Equatable {
        /// Requests answered from either tier.
        public var hitRatio: Double
        public var wrongImages: Int
        public var originBytes: Int
        public var warnings: Int
        /// Times the phone ended the app (0 on no phone).
        public var processEnds: Int
        /// On the run's network; nil without one.
        public var timeToImage: TimeToImage?

        init(_ result: SimulationResult) {
            hitRatio = result.combinedHitRatio
            wrongImages = result.wrongImages
            originBytes = result.bytesDownloaded
            warnings = result.warnings.count
            processEnds = result.device?.processEnds ?? 0
        }
    }

    /// Points of hits the tuned settings add to the defaults'.
    public var tuningGain: Double { tuned.hitRatio - defaults.hitRatio }
}

/// Each library preset on each trace against the best settings at its memory.
public enum LibraryComparison {
    /// The memory the tuned settings get when the defaults held less: the recommender's smallest size.
    static let smallestMemory = Recommendation.smallestSize

    /// Rows per workload, a library a row, in the presets' order. On `device` (the phone the
    /// libraries' shares of memory are taken of), each timed on `network` when given, its decodes and
    /// reads taking `costs`, its requests arriving as `arrivals` says.
    public static func run(
        _ workloads: [RecordedWorkload], device: DeviceModel? = .appsDefault, network: NetworkProfile? = nil,
        costs: DeviceCosts = .thisMachine, arrivals: SimulationConfiguration.Arrivals = .recorded, progress: ProgressLine = ProgressLine()
    ) throws(PipelineFileError) -> [LibraryComparisonRow] {
        let libraries = try PresetLibrary.libraries()
        let fixed = try PresetLibrary.fixed()
        /// The run on the clock, when there is a network (its hits are not the untimed run's: time decides joins).
        @Sendable func timeToImage(_ trace: SimulationTrace, _ configuration: SimulationConfiguration) -> TimeToImage? {
            guard let network else { return nil }
            var configuration = configuration
            configuration.network = network
            (configuration.deviceCosts, configuration.arrivals) = (costs, arrivals)
            return CacheSimulator.run(trace, configuration).timeToImage
        }
        // 1. Each library's defaults.
        let cells = workloads.indices.flatMap { w in libraries.indices.map { (w, $0) } }
        let defaults = ParallelMap.run(cells, progress: progress, label: "libraries") { cell in
            let trace = libraries[cell.1].trace(of: workloads[cell.0])
            var configuration = libraries[cell.1].configuration(on: device)
            configuration.device = device
            return (CacheSimulator.run(trace, configuration), timeToImage(trace, configuration))
        }
        // 2. The fixed pipeline at each library's peak memory and with its disk, under every deployable
        // policy; libraries that held as much with the same disk share their runs.
        struct Tuning: Hashable, Sendable {
            let workload: Int
            let memory: Int
            let disk: SimulationConfiguration.DiskTier?
        }
        let tunings = cells.indices.map { c in
            Tuning(workload: cells[c].0, memory: max(defaults[c].0.peakMemoryCost, smallestMemory),
                   disk: libraries[cells[c].1].configuration(on: device).disk)
        }
        var seen = Set<Tuning>()
        let distinct = tunings.filter { seen.insert($0).inserted }
        let policies = EvictionPolicyKind.deployable
        let fixedTraces = ParallelMap.run(Array(workloads.indices), progress: progress, label: "libraries: traces") { fixed.trace(of: workloads[$0]) }
        @Sendable func configuration(_ tuning: Tuning, _ policy: EvictionPolicyKind) -> SimulationConfiguration {
            var configuration = fixed.configuration(on: device)
            configuration.limits.costLimit = tuning.memory
            configuration.disk = tuning.disk
            configuration.policy = policy
            configuration.device = device
            return configuration
        }
        let candidates = distinct.indices.flatMap { t in policies.indices.map { (t, $0) } }
        let runs = ParallelMap.run(candidates, progress: progress, label: "libraries: tuned") { candidate in
            let tuning = distinct[candidate.0]
            return CacheSimulator.run(fixedTraces[tuning.workload], configuration(tuning, policies[candidate.1]))
        }
        // The first of the best: ties keep the policies' order, LRU first.
        let best = distinct.indices.map { t in
            let row = runs[(t * policies.count)..<((t + 1) * policies.count)]
            return row.indices.reduce(row.startIndex) { row[$1].combinedHitRatio > row[$0].combinedHitRatio ? $1 : $0 } - row.startIndex
        }
        let tuned = ParallelMap.run(Array(distinct.indices), progress: progress, label: "libraries: tuned, timed") { t in
            (runs[t * policies.count + best[t]],
             timeToImage(fixedTraces[distinct[t].workload], configuration(distinct[t], policies[best[t]])))
        }
        let tunedIndex = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, $0) })
        return cells.indices.map { c in
            let t = tunedIndex[tunings[c]]!
            var row = LibraryComparisonRow(
                trace: workloads[cells[c].0].name, library: libraries[cells[c].1].name, memoryBytes: tunings[c].memory,
                defaults: .init(defaults[c].0), tuned: .init(tuned[t].0), tunedPolicy: policies[best[t]].description)
            row.defaults.timeToImage = defaults[c].1
            row.tuned.timeToImage = tuned[t].1
            if row.tuned.hitRatio <= row.defaults.hitRatio { (row.tuned, row.tunedPolicy) = (row.defaults, nil) }
            return row
        }
    }
}
