import ArgumentParser
import Foundation
import ImagePipeline
import Bench

struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Thumbnail one file, report the median time and peak RSS (compare with vipsthumbnail)."
    )

    @Argument(help: "An encoded image file.")
    var input: String

    @Option(help: "Box width in pixels (0: unconstrained).")
    var width = 400

    @Option(help: "Box height in pixels (0: unconstrained; default: same as width).")
    var height: Int?

    @Option(help: "shrink-on-load or full-decode.")
    var strategy: Thumbnailer.Strategy = .shrinkOnLoad

    @Option(help: "Timed runs (the median is reported).")
    var repetitions = 1

    @Option(name: .shortAndLong, help: "Write the thumbnail as JPEG (quality 75, like vipsthumbnail) to this file.")
    var output: String?

    func run() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        let thumbnailer = Thumbnailer(strategy: strategy)
        let request = ThumbnailRequest(width: width, height: height ?? width)
        var times: [Double] = []
        var last: DecodedImage?
        var encodedBytes = 0
        for _ in 0..<max(1, repetitions) {
            let start = ContinuousClock.now
            let image = try thumbnailer.thumbnail(data, fitting: request)
            if let output {
                let encoded = try image.encoded(as: .jpeg(quality: 75))
                try encoded.write(to: URL(fileURLWithPath: output))
                encodedBytes = encoded.count
            }
            times.append((ContinuousClock.now - start).milliseconds)
            last = image
        }
        guard let last else { return }
        print(String(
            format: "%@ %d×%d → %d×%d  median %.2f ms over %d runs  peak RSS %@%@",
            strategy.rawValue, last.source.width, last.source.height, last.width, last.height,
            median(times), times.count, ByteSize.format(ProcessMetrics.peakResidentBytes),
            output.map { "  wrote \(ByteSize.format(encodedBytes)) to \($0)" } ?? ""))
    }
}

extension Thumbnailer.Strategy: ExpressibleByArgument {}
