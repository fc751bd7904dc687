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

    /// The curves of recorded traces (keyed by `strategy`) and of plain ones (keyed already).
    public static func run(
        _ inputs: [SimulationMatrix.Input], strategy: CacheKeyStrategy, policies: [EvictionPolicyKind],
        sizes: [ByteSize] = defaultFractions.map(ByteSize.fraction), progress: ProgressLine = ProgressLine()
    ) -> [SweepPoint] {
        var matrix = SimulationMatrix()
        matrix.strategies = [strategy]
        matrix.memorySizes = sizes
        matrix.diskSizes = [nil]
        matrix.policies = policies
        matrix.warnings = .none
        let rows = matrix.run(inputs, progress: progress)
        let footprints = Dictionary(inputs.map { input in
            switch input {
            case .recorded(let workload): (workload.name, workload.simulationTrace(strategy: strategy).memoryFootprint)
            case .plain(let name, let trace): (name, trace.memoryFootprint)
            }
        }, uniquingKeysWith: { first, _ in first })
        var points = rows.map { row in
            SweepPoint(
                trace: row.trace, keyStrategy: row.keyStrategy, policy: row.policy, memoryBytes: row.memoryBytes,
                fraction: Double(row.memoryBytes) / Double(max(footprints[row.trace] ?? 1, 1)),
                hitRatio: row.result.hitRatio, byteHitRatio: row.result.byteHitRatio)
        }
        // The references, once per size (they are the same row for every policy).
        var seen = Set<String>()
        for row in rows where seen.insert("\(row.trace) \(row.memoryBytes)").inserted {
            guard let bounds = row.bounds else { continue }
            let fraction = Double(row.memoryBytes) / Double(max(footprints[row.trace] ?? 1, 1))
            points.append(.init(trace: row.trace, keyStrategy: row.keyStrategy, policy: "belady", memoryBytes: row.memoryBytes,
                                fraction: fraction, hitRatio: bounds.belady, byteHitRatio: .nan))
            points.append(.init(trace: row.trace, keyStrategy: row.keyStrategy, policy: "pfoo-l", memoryBytes: row.memoryBytes,
                                fraction: fraction, hitRatio: bounds.objectBound, byteHitRatio: bounds.byteBound))
        }
        return points
    }
}
