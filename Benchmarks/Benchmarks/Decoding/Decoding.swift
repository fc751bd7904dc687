import Benchmark
import Tolerances
import Foundation
import ImagePipeline
import ImageSynthesis

/// Thumbnails per format and source size, shrink-on-load against the peer a
/// naive pipeline uses (decode every pixel, then resize), in the same run.
/// Peak resident memory is tracked: shrink-on-load never holds the full image.
let benchmarks: @Sendable () -> Void = {
    defer { Tolerances.apply() }
    try? LibVips.start()
    struct Case {
        let name: String
        let spec: SynthesisSpec
        let box: ThumbnailRequest
    }
    // The apps' shapes: Aladin covers, a news image, an Unsplash original, a product PNG, a WebP.
    let cases = [
        // Fits its box as it is: decoded by libjpeg directly, whatever the strategy.
        Case(name: "cover 85×125 JPEG → 60×88@3", spec: .init(seed: 1, width: 85, height: 125, format: .jpeg(quality: 85)),
             box: .init(width: 60, height: 88, scale: 3)),
        Case(name: "cover 200×290 JPEG → 60×88@3", spec: .init(seed: 1, width: 200, height: 290, format: .jpeg(quality: 85)),
             box: .init(width: 60, height: 88, scale: 3)),
        Case(name: "news 1200×630 JPEG → 120×80@3", spec: .init(seed: 2, width: 1200, height: 630, format: .jpeg(quality: 82)),
             box: .init(width: 120, height: 80, scale: 3)),
        Case(name: "photo 6000×4000 JPEG → 400 px", spec: .init(seed: 3, width: 6000, height: 4000, format: .jpeg(quality: 82)),
             box: .init(width: 400, height: 400)),
        Case(name: "product 300×300 PNG alpha → 100×100@3",
             spec: .init(seed: 4, width: 300, height: 300, format: .png(compression: 6), hasAlpha: true),
             box: .init(width: 100, height: 100, scale: 3)),
        Case(name: "photo 2400×1600 WebP → 195 pt@3", spec: .init(seed: 5, width: 2400, height: 1600, format: .webp(quality: 80)),
             box: .init(width: 195, height: 0, scale: 3)),
    ]
    let metrics: [BenchmarkMetric] = [.wallClock, .peakMemoryResident, .mallocCountTotal]
    for item in cases {
        guard let data = try? ImageSynthesizer.image(item.spec) else { continue }
        for strategy in Thumbnailer.Strategy.allCases {
            let thumbnailer = Thumbnailer(strategy: strategy)
            Benchmark("thumbnail \(item.name) \(strategy.rawValue)",
                      configuration: .init(metrics: metrics, maxDuration: .seconds(3), maxIterations: 50)) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(try thumbnailer.thumbnail(data, fitting: item.box))
                }
            }
        }
    }
}
