import ArgumentParser
import Foundation
import ImagePipeline
import Bench
import Workloads

struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Thumbnail one file, report the median time and peak RSS (compare with vipsthumbnail)."
    )

    @Argument(help: "An encoded image file.")
    var input: String

    @Option(parsing: .unconditional, help: "Box width in pixels (0: unconstrained).")
    var width = 400

    @Option(parsing: .unconditional, help: "Box height in pixels (0: unconstrained; default: same as width).")
    var height: Int?

    @Option(help: "shrink-on-load or full-decode.")
    var strategy: Thumbnailer.Strategy = .shrinkOnLoad

    @Option(parsing: .unconditional, help: "Timed runs (the median is reported).")
    var repetitions = 1

    @Option(name: .shortAndLong, help: "Write the thumbnail as JPEG (quality 75, like vipsthumbnail) to this file.")
    var output: String?

    func validate() throws {
        try OptionCheck.count(width, "--width", atLeast: 0, atMost: 100_000)
        if let height { try OptionCheck.count(height, "--height", atLeast: 0, atMost: 100_000) }
        try OptionCheck.count(repetitions, "--repetitions", atLeast: 1, atMost: 100_000)
    }

    func run() throws {
        guard let data = FileManager.default.contents(atPath: input) else {
            throw ValidationError("\(input): cannot read the image (no such file, a folder, or not readable)")
        }
        let thumbnailer = Thumbnailer(strategy: strategy)
        let request = ThumbnailRequest(width: width, height: height ?? width)
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
        guard let last else { return }
        print(String(
            format: "%@ %d×%d → %d×%d  median %.2f ms over %d runs  peak RSS %@%@",
            strategy.rawValue, last.source.width, last.source.height, last.width, last.height,
            median(times), times.count, ByteSize.format(ProcessMetrics.peakResidentBytes),
            output.map { "  wrote \(ByteSize.format(encodedBytes)) to \($0)" } ?? ""))
    }
}

extension Thumbnailer.Strategy: ExpressibleByArgument {}

/// A decoding failure with the file it came from.
private struct ImageFileError: Error, CustomStringConvertible {
    let path: String
    let failure: DecodingError

    var description: String { "\(path): \(failure)" }
}
