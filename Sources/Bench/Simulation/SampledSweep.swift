import ImagePipeline
import CacheSimulation

extension MissRatioSweep {
    /// Sampled keys under which curves are rough: the draw of a few hot keys decides them.
    static let roughSampleKeys = 10_000
    /// The lowest rate at which scaled-down SIEVE erred under 0.005 on average on the large trace (BENCHMARKS.md).
    static let sieveRate = 0.1

    /// Miss-ratio curves from a spatial sample of each trace's keys at `rate`: LRU by
    /// SHARDS (every size in one pass), every other policy and the offline references
    /// by scaled-down simulation (the sample through a cache of rate × the size; the
    /// per-entry cap stays at its full-size bytes where the scaled cache can hold them).
    /// Hit ratios, the references' too, are corrected for the keys drawn as `adjustment`
    /// says. Points come out as the exact sweep's do, each marked with its rate.
    static func sampled(
        _ inputs: [SimulationMatrix.Input], strategy: CacheKeyStrategy, policies: [EvictionPolicyKind], sizes: [ByteSize],
        rate: Double, adjustment: SampleAdjustment, shard: Shard?, bounds: Bool, progress: ProgressLine
    ) -> [SweepPoint] {
        let maxEntryFraction = 0.1
        if policies.contains(.sieve), rate < sieveRate {
            progress.note("sweep --sample: scaled-down SIEVE reads high (over eight draws of keys of a 100 M-request trace, "
                + "+0.004 to +0.009 on average at 1 %, about +0.006 at 3 %: a smaller cache's hand sweeps sooner; BENCHMARKS.md): "
                + "sample at \(sieveRate) for SIEVE")
        }
        let owned = shard.units(of: inputs.count * sizes.count)
        var points: [SweepPoint] = []
        for (index, input) in inputs.enumerated() {
            let ownedSizes = sizes.indices.filter { owned.contains(index * sizes.count + $0) }
            guard !ownedSizes.isEmpty else { continue }
            let (name, keyStrategy, full): (String, String, SimulationTrace) = switch input {
            case .recorded(let workload): (workload.name, strategy.description, workload.simulationTrace(strategy: strategy))
            case .plain(let name, let trace): (name, "interned", trace)
            case .streamed(let stream): preconditionFailure("a sampled sweep reads whole traces; \(stream.name) is a stream")
            }
            let footprint = full.memoryFootprint
            let sample = SpatialSample(full, rate: rate)
            if sample.trace.keyCount < roughSampleKeys {
                progress.note("sweep --sample: the sample of \(name) holds \(sample.trace.keyCount) of its \(full.keyCount) keys; "
                    + "under about \(roughSampleKeys) the curves are rough (BENCHMARKS.md); sweep it exactly, or sample at a higher rate")
            }
            let capacities = ownedSizes.map { sizes[$0].resolved(footprint: footprint) }
            let lru = policies.contains(.lru) ? SampledLRU.curve(sample, capacities: capacities, maxEntryFraction: maxEntryFraction, adjustment: adjustment) : []
            let scaled = capacities.map {
                CacheLimits(costLimit: Int((Double($0) * rate).rounded()), maxEntryFraction: min(maxEntryFraction / rate, 1))
            }
            let others = policies.filter { $0 != .lru }
            let cells = scaled.indices.flatMap { size in others.indices.map { (size: size, policy: $0) } }
            let simulated = ParallelMap.run(cells, progress: progress, label: "sampled \(name)") { cell in
                CacheSimulator.run(sample.trace, SimulationConfiguration(limits: scaled[cell.size], policy: others[cell.policy], warnings: .none))
            }
            let scoped = bounds ? sample.trace.scopedToLaunches() : SimulationTrace()
            let references = bounds
                ? ParallelMap.run(Array(scaled.indices), progress: progress, label: "sampled bounds") { OfflineBoundsRow(trace: scoped, limits: scaled[$0]) }
                : []
            for (position, capacity) in capacities.enumerated() {
                let fraction = Double(capacity) / Double(max(footprint, 1))
                func point(_ policy: String, _ hitRatio: Double, _ byteHitRatio: Double) -> SweepPoint {
                    SweepPoint(trace: name, keyStrategy: keyStrategy, policy: policy, memoryBytes: capacity, fraction: fraction,
                               hitRatio: hitRatio, byteHitRatio: byteHitRatio, sampleRate: rate)
                }
                // Every hit ratio, the references' too, corrected alike, so they compare as the exact sweep's do.
                let correction = sample.correction(limits: CacheLimits(costLimit: capacity, maxEntryFraction: maxEntryFraction), adjustment: adjustment)
                func adjusted(hits: Double) -> Double { sample.adjustedHitRatio(hits: hits, correction: correction) }
                for policy in policies {
                    if policy == .lru {
                        points.append(point(policy.description, lru[position].hitRatio, lru[position].byteHitRatio))
                    } else {
                        let result = simulated[position * others.count + others.firstIndex(of: policy)!]
                        points.append(point(policy.description, adjusted(hits: result.hits), result.byteHitRatio))
                    }
                }
                if bounds {
                    let requests = Double(sample.trace.count)
                    points.append(point("belady", adjusted(hits: references[position].belady * requests), .nan))
                    points.append(point("pfoo-l", adjusted(hits: references[position].objectBound * requests), references[position].byteBound))
                }
            }
        }
        return points
    }
}
