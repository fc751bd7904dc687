import ArgumentParser
import Bench

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the loopback origin: synthesised images, the five services' API pages, latency, faults."
    )

    @Option(parsing: .unconditional, help: "Port on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @Option(name: [.customLong("latency"), .customLong("latency-ms")], parsing: .unconditional,
            help: "Median response latency in milliseconds for every host (0: none), as replay --latency.")
    var latencyMs = 0.0

    @Option(parsing: .unconditional, help: "Spread of the log-normal latency.")
    var latencySigma = 0.5

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until interrupted).")
    var seconds: Double?

    @Flag(help: "Stop when standard input closes: a script or test holds it open while it uses the origin.")
    var stopOnEOF = false

    @Flag(help: "JSON lines for scripts: {\"baseURL\"} once listening, {\"statistics\"} when stopped.")
    var json = false

    func validate() throws {
        try OptionCheck.count(port, "--port", atLeast: 0, atMost: 65_535)
        try OptionCheck.number(latencyMs, "--latency", in: 0...60_000, "a median in milliseconds, 0 to 60000")
        try OptionCheck.number(latencySigma, "--latency-sigma", in: 0...5, "a log-normal spread, 0 to 5")
        if let seconds { try OptionCheck.number(seconds, "--seconds", in: 0...(365 * 86_400), "seconds, 0 to a year") }
    }

    func run() async throws {
        var job = ServeJob()
        job.port = port
        job.latencyMilliseconds = latencyMs
        job.latencySigma = latencySigma
        job.seconds = seconds
        job.stopsOnEOF = stopOnEOF
        job.json = json
        try await job.run()
    }
}
