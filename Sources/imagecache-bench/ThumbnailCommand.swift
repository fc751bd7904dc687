import ArgumentParser
import Bench
import ImagePipeline

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
        var timing = ThumbnailTiming()
        timing.input = input
        timing.width = width
        timing.height = height ?? width
        timing.strategy = strategy
        timing.repetitions = repetitions
        timing.output = output
        print(try timing.run())
    }
}

extension Thumbnailer.Strategy: ExpressibleByArgument {}
