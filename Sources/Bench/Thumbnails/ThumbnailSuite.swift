import Foundation
import ImagePipeline
import ImageSynthesis
import CacheSimulation

/// What one sample measured: sizes, and the median time of each strategy.
public struct ThumbnailMeasurement: Sendable, Codable {
    public let name: String
    public let app: String
    public let format: ImageFormat
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let encodedBytes: Int
    public let thumbnailWidth: Int
    public let thumbnailHeight: Int
    /// Decoded pixel bytes of the thumbnail: what it costs in a memory cache.
    public let decodedCost: Int
    /// Median milliseconds per thumbnail, by strategy raw value.
    public let medianMilliseconds: [String: Double]
}

/// Thumbnails every sample with every strategy, timing repeated runs.
public struct ThumbnailSuite: Sendable {
    public var samples: [SampleImage]
    public var strategies: [Thumbnailer.Strategy]
    public var repetitions: Int

    public init(
        samples: [SampleImage] = SampleImage.appSamples,
        strategies: [Thumbnailer.Strategy] = Thumbnailer.Strategy.allCases,
        repetitions: Int = 5
    ) {
        self.samples = samples
        self.strategies = strategies
        self.repetitions = max(1, repetitions)
    }

    public func run(progress: ProgressLine = ProgressLine()) throws(DecodingError) -> [ThumbnailMeasurement] {
        var results: [ThumbnailMeasurement] = []
        for (index, sample) in samples.enumerated() {
            progress.update("thumbnails \(index + 1)/\(samples.count): \(sample.name)")
            let data = try ImageSynthesizer.image(sample.spec)
            var medians: [String: Double] = [:]
            var thumbnail: DecodedImage?
            for strategy in strategies {
                let thumbnailer = Thumbnailer(strategy: strategy)
                var times: [Double] = []
                for _ in 0..<repetitions {
                    let start = ContinuousClock.now
                    thumbnail = try thumbnailer.thumbnail(data, fitting: sample.request)
                    times.append((ContinuousClock.now - start).milliseconds)
                }
                medians[strategy.rawValue] = Statistics.median(times)
            }
            guard let thumbnail else { continue }
            results.append(ThumbnailMeasurement(
                name: sample.name, app: sample.app, format: thumbnail.source.format,
                sourceWidth: thumbnail.source.width, sourceHeight: thumbnail.source.height,
                encodedBytes: data.count, thumbnailWidth: thumbnail.width, thumbnailHeight: thumbnail.height,
                decodedCost: thumbnail.cost, medianMilliseconds: medians))
        }
        progress.finish()
        return results
    }

    /// The measurements as a table for people.
    public func table(_ results: [ThumbnailMeasurement]) -> TextTable {
        var table = TextTable(
            [("image", .left), ("app", .left), ("format", .left), ("encoded", .right),
             ("thumbnail", .right), ("cost", .right)]
                + strategies.map { ("\($0.rawValue) ms", .right) }
                + (strategies.count > 1 ? [("speed-up", .right)] : []))
        for result in results {
            let times = strategies.map { result.medianMilliseconds[$0.rawValue] ?? .nan }
            var row = [
                result.name, result.app, result.format.rawValue, ByteSize.format(result.encodedBytes),
                "\(result.thumbnailWidth)×\(result.thumbnailHeight)", ByteSize.format(result.decodedCost),
            ] + times.map { String(format: "%.2f", $0) }
            if strategies.count > 1, let fastest = times.first, let slowest = times.last {
                row.append(String(format: "%.1f×", slowest / fastest))
            }
            table.append(row)
        }
        return table
    }
}
