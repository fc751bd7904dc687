import Foundation
import ImagePipeline
import Workloads
import CacheSimulation

/// `thumbnail`: one file thumbnailed, its median time and the peak RSS, to compare with vipsthumbnail.
public struct ThumbnailTiming: Sendable {
    public var input = ""
    /// The box; 0 leaves a side unconstrained.
    public var width = 400
    public var height = 400
    public var strategy = Thumbnailer.Strategy.shrinkOnLoad
    /// Timed runs; the median is reported.
    public var repetitions = 1
    /// Where to write the thumbnail as JPEG (quality 75, as vipsthumbnail), if anywhere.
    public var output: String?

    public init() {}

    /// A decoding failure with the file it came from.
    struct ImageFileError: Error, CustomStringConvertible {
        let path: String
        let failure: DecodingError
        var description: String { "\(path): \(failure)" }
    }

    /// The line `thumbnail` prints.
    public func run() throws -> String {
        guard let data = FileManager.default.contents(atPath: input) else {
            throw UsageError("\(input): cannot read the image (no such file, a folder, or not readable)")
        }
        let thumbnailer = Thumbnailer(strategy: strategy)
        let request = ThumbnailRequest(width: width, height: height)
        var times: [Double] = []
        var last: DecodedImage?
        var encodedBytes = 0
        for _ in 0..<max(1, repetitions) {
            let start = ContinuousClock.now
            let image: DecodedImage
            do {
                image = try thumbnailer.thumbnail(data, fitting: request)
            } catch {
                throw ImageFileError(path: input, failure: error)
            }
            if let output {
                let encoded = try image.encoded(as: .jpeg(quality: 75))
                try OutputFile.write(encoded, to: output)
                encodedBytes = encoded.count
            }
            times.append((ContinuousClock.now - start).milliseconds)
            last = image
        }
        guard let last else { return "" }
        return String(
            format: "%@ %d×%d → %d×%d  median %.2f ms over %d runs  peak RSS %@%@",
            strategy.rawValue, last.source.width, last.source.height, last.width, last.height,
            Statistics.median(times), times.count, ByteSize.format(ProcessMetrics.peakResidentBytes),
            output.map { "  wrote \(ByteSize.format(encodedBytes)) to \($0)" } ?? "")
    }
}
