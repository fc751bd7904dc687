import ArgumentParser
import Bench
import Workloads

struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Run an app model against the loopback origin and write the trace it produces.",
        discussion: "Same app, sessions and seed give the same trace, byte for byte. A path ending in .gz is gzip-compressed."
    )

    @Option(help: "The app: \(AppName.allCases.map(\.rawValue).joined(separator: ", ")), or all (users of each in turn).")
    var app: String

    @Option(parsing: .unconditional, help: "Users (sessions) to record.")
    var sessions = 10

    @Option(help: "Seed of the user-behaviour model and the origin: any whole number from 0 to 2^64−1.")
    var seed: UInt64 = 1

    @Option(name: [.short, .long], help: "Trace file to write (.jsonl or .jsonl.gz).")
    var output: String

    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).")
    var store = Recording.defaultStore

    @Option(help: "A URL catalogue (imagecache-bench import api): the origin's pages hand out its real image URLs.")
    var catalogue: String?

    @Option(parsing: .unconditional, help: "Share of news images named 840_560.jpeg in their own folders, as seed 000's Korean outlets do (0–1; the real responses show none).")
    var sharedFileNames = 0.0

    func validate() throws {
        try OptionCheck.count(sessions, "--sessions", atLeast: 1, atMost: 1_000_000)
        try OptionCheck.number(sharedFileNames, "--shared-file-names", in: 0...1, "a share from 0 to 1")
    }

    func run() async throws {
        var job = RecordJob()
        job.app = app
        job.sessions = sessions
        job.seed = seed
        job.output = output
        job.store = store
        job.catalogue = catalogue
        job.sharedFileNames = sharedFileNames
        print(try await job.run())
    }
}
