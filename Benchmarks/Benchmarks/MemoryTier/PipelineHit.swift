import Benchmark
import Foundation
import ImagePipeline
import ImageSynthesis
import PipelineTesting
import Tolerances

/// `ImagePipeline.image(for:)` answering from memory (target: p50 ≤ 300 ns, no
/// allocation): a news thumbnail fetched once through a scripted fetcher, then asked for
/// 10,000 times per iteration. Nanoseconds a hit, and allocations over the 10,000.
func pipelineHitBenchmarks() {
    let nanosecondsPerHit = BenchmarkMetric.custom("ns per hit", polarity: .prefersSmaller, useScalingFactor: false)
    let hits = 10_000
    Benchmark(
        "alloc_pipeline_memory-hit",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerHit], maxIterations: 20,
                             thresholds: Tolerances.with(speed: nanosecondsPerHit))
    ) { benchmark in
        try LibVips.start()
        let jpeg = try ImageSynthesizer.image(.init(seed: 2, width: 1200, height: 630, format: .jpeg(quality: 82)))
        let pipeline = try ImagePipeline(.init(), fetcher: ScriptedFetcher(fallback: .data(jpeg)))
        let request = ImageRequest(url: "https://img.news.example/photo/2026/11/840_560.jpeg?w=1200",
                                   box: .init(width: 120, height: 80, scale: 3))
        _ = try await pipeline.image(for: request)  // the miss that fills memory
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        for _ in 0..<hits { blackHole(try await pipeline.image(for: request)) }
        let elapsed = ContinuousClock.now - start
        benchmark.stopMeasurement()
        let nanoseconds = Double(elapsed.components.attoseconds) * 1e-9 + Double(elapsed.components.seconds) * 1e9
        benchmark.measurement(nanosecondsPerHit, Int(nanoseconds / Double(hits)))
    }
}
