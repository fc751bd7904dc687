import ArgumentParser
import Bench

struct ThumbnailsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Thumbnail the generated sample set of the five apps' image shapes and time each strategy."
    )

    @Option(parsing: .unconditional, help: "Timed runs per image and strategy (the median is reported).")
    var repetitions = 5

    @Flag(help: "Print the measurements as JSON instead of the table.")
    var json = false

    func validate() throws {
        try OptionCheck.count(repetitions, "--repetitions", atLeast: 1, atMost: 100_000)
    }

    func run() throws {
        let suite = ThumbnailSuite(repetitions: repetitions)
        let results = try suite.run()
        guard !json else { return print(try ResultsJSON.text(results)) }
        print(suite.table(results).render())
        print("peak RSS \(ByteSize.format(ProcessMetrics.peakResidentBytes))")
    }
}
