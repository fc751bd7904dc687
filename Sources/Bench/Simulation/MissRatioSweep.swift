import ImagePipeline
import CacheSimulation

/// One point of a miss-ratio curve: a policy (or bound) at one memory size.
public struct SweepPoint: Codable, Sendable {
    public var trace: String
    public var keyStrategy: String
    /// A policy name, or "belady", "pfoo-l" for the offline references.
    public var policy: String
    public var memoryBytes: Int
    /// The size as a share of the memory footprint (what never evicts).
    public var fraction: Double
    public var hitRatio: Double
    public var byteHitRatio: Double
    /// The spatial sampling rate the point was estimated at; nil for an exact point.
    public var sampleRate: Double? = nil

    public var missRatio: Double { 1 - hitRatio }
}

/// Miss-ratio curves: hit ratio against memory size per policy, with the
/// offline references, on the memory tier alone (no disk, no warnings) so the
/// curve shows the policy, not the app's warnings.
public enum MissRatioSweep {
    public static let defaultFractions: [Double] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0]

    public static func run(
        _ workloads: [RecordedWorkload], strategy: CacheKeyStrategy, policies: [EvictionPolicyKind],
        sizes: [ByteSize] = defaultFractions.map(ByteSize.fraction), progress: ProgressLine = ProgressLine()
    ) -> [SweepPoint] {
        run(workloads.map { .recorded($0) }, strategy: strategy, policies: policies, sizes: sizes, progress: progress)
    }

    /// The curves of recorded traces (keyed by `strategy`) and of plain ones (keyed already),
    /// point by point in (trace, size) order: each size's policies, then its references.
    /// With `shard`, only that part of the (trace, size) units.
    public static func run(
        _ inputs: [SimulationMatrix.Input], strategy: CacheKeyStrategy, policies: [EvictionPolicyKind],
        sizes: [ByteSize] = defaultFractions.map(ByteSize.fraction), shard: Shard? = nil, sample: Double? = nil,
        sampleAdjustment: SampleAdjustment = .hitModel, bounds: Bool = true, progress: ProgressLine = ProgressLine()
    ) -> [SweepPoint] {
        if let sample {
            return sampled(
                inputs, strategy: strategy, policies: policies, sizes: sizes, rate: sample, adjustment: sampleAdjustment, shard: shard,
                bounds: bounds, progress: progress)
        }
        var matrix = SimulationMatrix()
        matrix.bounds = bounds
        matrix.strategies = [strategy]
        matrix.memorySizes = sizes
        matrix.diskSizes = [nil]
        matrix.policies = policies
        matrix.warnings = .none
        matrix.shard = shard
        let rows = matrix.run(inputs, progress: progress)
        var footprints: [String: Int] = [:]
        for input in inputs where footprints[input.name] == nil && rows.contains(where: { $0.trace == input.name }) {
            switch input {
            case .recorded(let workload): footprints[workload.name] = workload.simulationTrace(strategy: strategy).memoryFootprint
            case .plain(let name, let trace): footprints[name] = trace.memoryFootprint
            case .streamed(let stream): preconditionFailure("a sweep's sizes are shares of whole traces; \(stream.name) is a stream")
            }
        }
        var points: [SweepPoint] = []
        // The matrix gives one row per policy for each (trace, size), in that order.
        for start in stride(from: 0, to: rows.count, by: max(policies.count, 1)) {
            let group = rows[start..<min(start + policies.count, rows.count)]
            let first = group[group.startIndex]
            let fraction = Double(first.memoryBytes) / Double(max(footprints[first.trace] ?? 1, 1))
            for row in group {
                points.append(.init(
                    trace: row.trace, keyStrategy: row.keyStrategy, policy: row.policy, memoryBytes: row.memoryBytes,
                    fraction: fraction, hitRatio: row.result.hitRatio, byteHitRatio: row.result.byteHitRatio))
            }
            // The references, once per size (they are the same for every policy).
            guard let bounds = first.bounds else { continue }
            points.append(.init(trace: first.trace, keyStrategy: first.keyStrategy, policy: "belady", memoryBytes: first.memoryBytes,
                                fraction: fraction, hitRatio: bounds.belady, byteHitRatio: .nan))
            points.append(.init(trace: first.trace, keyStrategy: first.keyStrategy, policy: "pfoo-l", memoryBytes: first.memoryBytes,
                                fraction: fraction, hitRatio: bounds.objectBound, byteHitRatio: bounds.byteBound))
        }
        return points
    }
}
