import Foundation
import ImagePipeline
import CacheSimulation

/// Traces × key strategies × memory and disk sizes × policies × reactions,
/// each cell one deterministic `CacheSimulator` run, with the offline bounds
/// per (trace, strategy, memory size). Cells run in parallel on all cores.
public struct SimulationMatrix: Sendable {
    public var strategies: [CacheKeyStrategy] = [ReplayDefaults.keyStrategy]
    public var memorySizes: [ByteSize] = [.bytes(ReplayDefaults.memoryBytes)]
    /// nil: no disk tier.
    public var diskSizes: [ByteSize?] = [.bytes(ReplayDefaults.diskBytes)]
    public var diskPolicy = ReplayDefaults.diskPolicy
    public var policies: [EvictionPolicyKind] = [.lru]
    public var reactions: [WarningReaction] = [WarningReaction(.purgeAll)]
    public var warnings: SimulationConfiguration.WarningSource = .trace
    public var honoursInvalidations = true
    /// Requests in flight together (see `SimulationConfiguration.inFlight`).
    public var inFlight = 0
    /// The memory tier's stripes (see `CacheStripes`).
    public var stripes = CacheStripes.single
    /// The phone the app runs on (recorded traces); nil for none.
    public var device: DeviceModel?
    /// With a network, each run times its requests (`SimulationResult.timeToImage`).
    public var network: NetworkProfile?
    /// What decodes and disk reads take on the clock.
    public var deviceCosts = DeviceCosts.thisMachine
    /// On the clock, when requests arrive.
    public var arrivals = SimulationConfiguration.Arrivals.recorded
    /// Run in the order a live replay took its decisions (one recorded trace), instead of
    /// trace order (`CacheSimulator.answers(_:_:observed:)`).
    public var observedOrder: ObservedOrder?
    /// Largest memory entry, as a share of the memory size (`CacheLimits.maxEntryFraction`).
    public var maxEntryFraction = 0.1
    public var bounds = true
    /// Only this part of the matrix: its units are the (trace, strategy, memory size)
    /// groups, each with its disk sizes, policies, reactions and bounds.
    public var shard: Shard?

    public init() {}

    public func run(_ workloads: [RecordedWorkload], progress: ProgressLine = ProgressLine()) -> [SimulationRow] {
        run(workloads.map { .recorded($0) }, progress: progress)
    }

    /// What a matrix runs on: a recorded workload (keyed by each strategy), a
    /// plain trace whose keys are already interned (a binary `.icbt` file), or a plain
    /// trace simulated while it is read. A stream is read once, by the one run it serves:
    /// its sizes must be absolute (a share of a footprint needs the whole trace first), it
    /// gets no offline bounds, and its `finished()` says whether the rows stand.
    public enum Input: Sendable {
        case recorded(RecordedWorkload)
        case plain(name: String, SimulationTrace)
        case streamed(PlainTraceStream)

        public var name: String {
            switch self {
            case .recorded(let workload): workload.name
            case .plain(let name, _): name
            case .streamed(let stream): stream.name
            }
        }

        var isPlain: Bool {
            switch self {
            case .recorded: false
            case .plain, .streamed: true
            }
        }

        /// The stream, for a streamed trace: its `finished()` says whether the rows stand.
        public var stream: PlainTraceStream? {
            if case .streamed(let stream) = self { stream } else { nil }
        }
    }

    /// How many units a shard of this matrix divides: one per (trace, key strategy, memory size).
    public func unitCount(_ inputs: [Input]) -> Int {
        inputs.reduce(0) { total, input in
            input.isPlain ? total + memorySizes.count : total + strategies.count * memorySizes.count
        }
    }

    public func run(_ inputs: [Input], progress: ProgressLine = ProgressLine()) -> [SimulationRow] {
        struct Cell: Sendable {
            let trace: Int, strategy: Int, memory: Int, disk: Int, policy: Int, reaction: Int
        }
        // Units in the order rows come out: (trace, strategy, memory size); a shard takes a contiguous range.
        let strategyCounts = inputs.map { $0.isPlain ? 1 : strategies.count }
        var groups: [Cell] = []
        for trace in inputs.indices {
            for strategy in 0..<strategyCounts[trace] {
                for memory in memorySizes.indices {
                    groups.append(Cell(trace: trace, strategy: strategy, memory: memory, disk: 0, policy: 0, reaction: 0))
                }
            }
        }
        let owned = Array(groups[shard.units(of: groups.count)])
        // One keyed trace per (input, strategy) the owned groups use, shared by their cells.
        var needed = inputs.indices.map { Array(repeating: false, count: strategyCounts[$0]) }
        for group in owned { needed[group.trace][group.strategy] = true }
        let traces: [[(strategy: String, trace: SimulationTrace)]] = inputs.indices.map { index in
            switch inputs[index] {
            case .recorded(let workload):
                strategies.indices.map { needed[index][$0] ? (strategies[$0].description, workload.simulationTrace(strategy: strategies[$0])) : ("", SimulationTrace()) }
            case .plain(_, let trace): [("interned", trace)]
            case .streamed: [("interned", SimulationTrace())]
            }
        }
        var cells: [Cell] = []
        for group in owned {
            for disk in diskSizes.indices {
                for policy in policies.indices {
                    for reaction in reactions.indices {
                        cells.append(Cell(trace: group.trace, strategy: group.strategy, memory: group.memory, disk: disk, policy: policy, reaction: reaction))
                    }
                }
            }
        }
        // Footprints are another pass over each trace: only when a size is a share of one.
        let relativeMemory = memorySizes.contains { if case .fraction = $0 { true } else { false } }
        let relativeDisk = diskSizes.contains { if case .fraction = $0 { true } else { false } }
        precondition(
            !(relativeMemory || relativeDisk) || inputs.allSatisfy { $0.stream == nil },
            "a streamed trace has no footprint until it is read: give it absolute sizes")
        let footprints = traces.indices.map { index in
            traces[index].indices.map { strategy in
                let trace = traces[index][strategy].trace, used = needed[index][strategy]
                return (memory: relativeMemory && used ? trace.memoryFootprint : 0, disk: relativeDisk && used ? trace.diskFootprint : 0)
            }
        }
        // Every run of a stream starts at its first chunk, taken before any run goes on.
        let cursors = Locked(inputs.indices.map { index in
            inputs[index].stream?.cursors(cells.count { $0.trace == index }) ?? []
        })
        let rows = ParallelMap.run(cells, progress: progress, label: "simulate") { cell -> SimulationRow in
            let (strategy, trace) = traces[cell.trace][cell.strategy]
            let footprint = footprints[cell.trace][cell.strategy]
            let memoryBytes = memorySizes[cell.memory].resolved(footprint: footprint.memory)
            let diskBytes = diskSizes[cell.disk].map { $0.resolved(footprint: footprint.disk) }
            var configuration = SimulationConfiguration(
                limits: CacheLimits(costLimit: memoryBytes, maxEntryFraction: maxEntryFraction), policy: policies[cell.policy],
                pressure: reactions[cell.reaction].policy, warnings: warnings,
                disk: diskBytes.map { .init(byteLimit: $0, policy: diskPolicy) }, honoursInvalidations: honoursInvalidations,
                inFlight: inFlight, stripes: stripes, device: device, network: network)
            configuration.deviceCosts = deviceCosts
            configuration.arrivals = arrivals
            let start = ContinuousClock.now
            let result: SimulationResult
            if inputs[cell.trace].stream != nil {
                result = CacheSimulator.run(cursors.withLock { $0[cell.trace].removeLast() }, configuration)
            } else {
                result = observedOrder.map { CacheSimulator.answers(trace, configuration, observed: $0).result }
                    ?? CacheSimulator.run(trace, configuration)
            }
            return SimulationRow(
                trace: inputs[cell.trace].name, keyStrategy: strategy,
                memoryBytes: memoryBytes, diskBytes: diskBytes, reaction: reactions[cell.reaction].description,
                warnings: warnings.description, inFlight: inFlight > 1 ? inFlight : nil, inObservedOrder: observedOrder == nil ? nil : true,
                stripes: stripes.count > 1 ? stripes.count : nil, network: result.timeToImage?.network, result: result,
                seconds: (ContinuousClock.now - start).seconds)
        }
        guard bounds else { return rows }
        // Bounds per (trace, strategy, memory size), computed once each.
        let scoped = traces.indices.map { index in
            traces[index].indices.map { needed[index][$0] ? traces[index][$0].trace.scopedToLaunches() : SimulationTrace() }
        }
        let bounded = owned.filter { inputs[$0.trace].stream == nil }
        let found = ParallelMap.run(bounded, progress: progress, label: "bounds") { cell -> OfflineBoundsRow in
            let memoryBytes = memorySizes[cell.memory].resolved(footprint: footprints[cell.trace][cell.strategy].memory)
            return OfflineBoundsRow(trace: scoped[cell.trace][cell.strategy], limits: CacheLimits(costLimit: memoryBytes, maxEntryFraction: maxEntryFraction))
        }
        var boundsByCell: [String: OfflineBoundsRow] = [:]
        for (cell, bound) in zip(bounded, found) {
            boundsByCell["\(cell.trace) \(cell.strategy) \(cell.memory)"] = bound
        }
        return zip(cells, rows).map { cell, row in
            var row = row
            row.bounds = boundsByCell["\(cell.trace) \(cell.strategy) \(cell.memory)"]
            return row
        }
    }
}

/// The offline references for one memory size: Belady's MIN and the PFOO-L
/// space-time bounds on object and byte hit ratio.
public struct OfflineBoundsRow: Codable, Sendable, Equatable {
    public var belady: Double
    public var objectBound: Double
    public var byteBound: Double

    init(trace: SimulationTrace, limits: CacheLimits) {
        belady = OfflineBounds.belady(trace, limits: limits).hitRatio
        let bound = OfflineBounds.spaceTimeBound(trace, limits: limits)
        objectBound = bound.objects.hitRatio
        byteBound = bound.bytes.byteHitRatio
    }
}

/// One simulated configuration on one trace.
public struct SimulationRow: Codable, Sendable {
    public var trace: String
    public var keyStrategy: String
    public var memoryBytes: Int
    public var diskBytes: Int?
    public var reaction: String
    public var warnings: String
    /// Requests in flight together; nil when each landed before the next.
    public var inFlight: Int?
    /// True when run in a live replay's observed order; nil in trace order.
    public var inObservedOrder: Bool?
    /// The memory tier's stripes; nil for one.
    public var stripes: Int?
    /// The network profile's name when the run kept a clock (`SimulationResult.timeToImage`); nil without.
    public var network: String?
    /// The pipeline file's name when the row ran one (`simulate --pipeline`); nil for a matrix cell.
    public var pipeline: String? = nil
    public var result: SimulationResult
    public var seconds: Double
    public var bounds: OfflineBoundsRow?

    public var policy: String { result.policy }
    public var diskHitRatio: Double { result.requests == 0 ? 0 : Double(result.diskHits) / Double(result.requests) }
}
