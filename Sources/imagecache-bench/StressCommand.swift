import ArgumentParser
import Bench

struct StressCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stress",
        abstract: "Bounded stress scenarios on the live pipeline; exits 1 when an invariant breaks.",
        discussion: """
            Invariants: every request answered once (an image or a typed error), no answer showing another key's picture, \
            memory and disk within their limits at rest, no failures when no faults are switched on.
            Scenarios: \(StressScenario.Kind.allCases.map(\.rawValue).joined(separator: ", ")).
            """)
    @Option(help: "Scenarios (comma-separated), or all.") var scenario = "all"
    @Option(parsing: .unconditional, help: "Requests per scenario, 1 to \(StressScenario.maximumRequests).") var requests = 2_000
    @Option(parsing: .unconditional, help: "Distinct images the requests share, 1 to \(StressScenario.maximumImages).") var images = 24
    @Option(parsing: .unconditional, help: "Requests in flight at most.") var concurrency = 128
    @Option(help: "Directory where the origin keeps synthesised images (runs at once may share it).") var store = Recording.defaultStore
    @Flag(help: "Print the reports as JSON.") var json = false
    @Option(parsing: .unconditional, help: "Soak instead: this many rounds of every fault at once, doubling --requests each round, checking memory and descriptors.")
    var soak: Int?

    func validate() throws {
        try OptionCheck.count(requests, "--requests", atLeast: 1, atMost: StressScenario.maximumRequests)
        try OptionCheck.count(images, "--images", atLeast: 1, atMost: StressScenario.maximumImages)
        try OptionCheck.count(concurrency, "--concurrency", atLeast: 1, atMost: 10_000)
        try OptionCheck.library(job.validate)
    }

    var job: StressJob {
        var job = StressJob()
        job.scenario = scenario
        job.requests = requests
        job.images = images
        job.concurrency = concurrency
        job.store = store
        job.json = json
        job.soak = soak
        return job
    }

    func run() async throws { try await job.run() }
}
