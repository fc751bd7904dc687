// Preconcurrency: the harness keeps its registered benchmarks in a plain static array, read
// here once they are all declared, on the thread that declared them.
@preconcurrency import Benchmark

/// The tolerances `swift package benchmark thresholds check` applies against
/// the committed `Thresholds/`: allocation counts are deterministic and gated
/// tightly; timings are reported but gated only against a several-fold
/// slowdown, because CI machines are noisy. Each benchmark gets those of the metrics it
/// measures, and no others: the harness warns at every start of a benchmark's process about
/// a tolerance for a metric the benchmark does not measure, for every benchmark declared,
/// which buried a failing check's lines in CI's log.
public enum Tolerances {
    public static var standard: [BenchmarkMetric: BenchmarkThresholds] {
        [
            .mallocCountTotal: .init(relative: [.p50: 5, .p90: 5], absolute: [.p50: 2, .p90: 2]),
            .wallClock: .init(relative: [.p50: 300, .p90: 300]),
            .throughput: .init(relative: [.p50: 75, .p90: 75]),
            .peakMemoryResident: .init(relative: [.p50: 50, .p90: 50]),
        ]
    }

    /// A speed metric of the benchmark's own, gated against the same several-fold slowdown as
    /// `throughput` and `wallClock`: a rate may fall by 75% (to a quarter), a time per operation
    /// may grow by 300% (to four times). (A time gated at 75% failed CI at 1.8× on a machine
    /// another job was loading.) The standard tolerances are added by `apply`.
    public static func with(speed metric: BenchmarkMetric) -> [BenchmarkMetric: BenchmarkThresholds] {
        let limit = metric.polarity == .prefersSmaller ? 300.0 : 75.0
        return [metric: .init(relative: [.p50: limit, .p90: limit])]
    }

    /// Gives every benchmark declared so far the standard tolerances of the metrics it measures,
    /// beside any of its own: deferred at the top of a target's declarations, so it runs once
    /// they are all made (the harness declares none of its own by default).
    public static func apply() {
        for benchmark in Benchmark.benchmarks {
            let measured = Set(benchmark.configuration.metrics)
            let fitting = standard.filter { measured.contains($0.key) }
            benchmark.configuration.thresholds = fitting.merging(benchmark.configuration.thresholds ?? [:]) { _, own in own }
        }
    }
}
