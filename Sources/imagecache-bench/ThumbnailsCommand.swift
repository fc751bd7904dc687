import ArgumentParser
import Foundation
import ImagePipeline
import Bench

struct ThumbnailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Thumbnail the generated sample set of the five apps' image shapes and time each strategy."
    )

    @Option(parsing: .unconditional, help: "Timed runs per image and strategy (the median is reported).")
    var repetitions = 5

    @Option(help: "Also write the measurements as JSON to this file.")
    var json: String?

    func validate() throws {
        try OptionCheck.count(repetitions, "--repetitions", atLeast: 1, atMost: 100_000)
    }

    func run() throws {
        let suite = ThumbnailSuite(repetitions: repetitions)
        let results = try suite.run()
        print(suite.table(results).render())
        print("peak RSS \(ByteSize.format(ProcessMetrics.peakResidentBytes))")
        if let json {
            try writeJSON(results, to: json)
        }
    }
}

/// Writes a value as pretty, key-sorted JSON.
func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
    try ResultsJSON.encoder().encode(value).write(to: URL(fileURLWithPath: path))
}
