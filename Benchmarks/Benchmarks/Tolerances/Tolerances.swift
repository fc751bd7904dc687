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
    /// another job was loading.) The standard tolerances are added by `fitToMetrics`.
    public static func with(speed metric: BenchmarkMetric) -> [BenchmarkMetric: BenchmarkThresholds] {
        let limit = metric.polarity == .prefersSmaller ? 300.0 : 75.0
        return [metric: .init(relative: [.p50: limit, .p90: limit])]
    }

    /// Call first in a target's declarations: they then start with no tolerances, so none is
    /// declared for a metric a benchmark does not measure.
    public static func apply() {
        Benchmark.defaultConfiguration.thresholds = nil
    }

    /// Call once the target's benchmarks are declared (a `defer` after `apply()`): gives each the
    /// standard tolerances of the metrics it measures, beside any of its own.
    public static func fitToMetrics() {
        for benchmark in Benchmark.benchmarks {
            let measured = Set(benchmark.configuration.metrics)
            let fitting = standard.filter { measured.contains($0.key) }
            benchmark.configuration.thresholds = fitting.merging(benchmark.configuration.thresholds ?? [:]) { _, own in own }
        }
    }
}
