import Benchmark

/// The tolerances `swift package benchmark thresholds check` applies against
/// the committed `Thresholds/`: allocation counts are deterministic and gated
/// tightly; timings are reported but gated only against a several-fold
/// slowdown, because CI machines are noisy.
public enum Tolerances {
    public static var standard: [BenchmarkMetric: BenchmarkThresholds] {
        [
            .mallocCountTotal: .init(relative: [.p50: 5, .p90: 5], absolute: [.p50: 2, .p90: 2]),
            .wallClock: .init(relative: [.p50: 300, .p90: 300]),
            .throughput: .init(relative: [.p50: 75, .p90: 75]),
            .peakMemoryResident: .init(relative: [.p50: 50, .p90: 50]),
        ]
    }

    /// The standard tolerances plus a speed metric of the benchmark's own, gated against the same
    /// several-fold slowdown: a rate may fall by 75% (to a quarter), a time per operation may grow
    /// by 300% (to four times), as `throughput` and `wallClock` are. (A time gated at 75% failed CI
    /// at 1.8× on a machine another job was loading.)
    public static func with(speed metric: BenchmarkMetric) -> [BenchmarkMetric: BenchmarkThresholds] {
        let limit = metric.polarity == .prefersSmaller ? 300.0 : 75.0
        return standard.merging([metric: .init(relative: [.p50: limit, .p90: limit])]) { _, new in new }
    }

    /// Applies the tolerances to every benchmark declared after this call.
    public static func apply() {
        Benchmark.defaultConfiguration.thresholds = standard
    }
}
