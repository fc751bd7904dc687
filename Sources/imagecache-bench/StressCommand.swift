import ArgumentParser
import Foundation
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
        _ = try kinds()
        try OptionCheck.count(requests, "--requests", atLeast: 1, atMost: StressScenario.maximumRequests)
        try OptionCheck.count(images, "--images", atLeast: 1, atMost: StressScenario.maximumImages)
        try OptionCheck.count(concurrency, "--concurrency", atLeast: 1, atMost: 10_000)
        // Each round doubles --requests: its last round is held to a scenario's most.
        if let soak {
            try OptionCheck.count(soak, "--soak", atLeast: 1, atMost: 20)
            guard requests <= StressScenario.maximumRequests >> (soak - 1) else {
                throw ValidationError("--soak \(soak) doubles --requests \(soak - 1) times, past \(StressScenario.maximumRequests) requests a round; give fewer rounds or requests")
            }
        }
    }

    func kinds() throws -> [StressScenario.Kind] {
        if scenario.lowercased() == "all" { return StressScenario.Kind.allCases }
        return try SettingParsing.list(scenario).map {
            guard let kind = StressScenario.Kind(rawValue: $0.lowercased()) else {
                throw ValidationError("unknown scenario \"\($0)\"; choose from \(StressScenario.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
    }

    func run() async throws {
        if let soak { return try await runSoak(rounds: soak) }
        let scenarios = try kinds().map { StressScenario($0, requests: requests, keys: images, concurrency: concurrency) }
        let reports = try await StressRunner.run(scenarios, store: store)
        if json {
            print(try jsonText(reports))
        } else {
            var table = TextTable([
                ("scenario", .left), ("requests", .right), ("images", .right), ("typed errors", .right), ("unanswered", .right),
                ("wrong", .right), ("warnings", .right), ("memory at rest", .right), ("disk at rest", .right), ("s", .right), ("result", .left),
            ])
            for report in reports {
                table.append([
                    report.scenario, String(report.requests), String(report.images), String(report.typedErrors), String(report.unanswered),
                    String(report.wrongImages), String(report.warnings),
                    "\(ByteSize.format(report.memoryCostAtRest))/\(ByteSize.format(report.memoryLimit))",
                    "\(ByteSize.format(report.diskBytesAtRest))/\(ByteSize.format(report.diskLimit))",
                    String(format: "%.1f", report.seconds), report.passed ? "pass" : "FAIL",
                ])
            }
            print(table.render())
            for report in reports where !report.passed {
                print("\(report.scenario): " + report.violations.joined(separator: "; "))
            }
        }
        if reports.contains(where: { !$0.passed }) { throw ExitCode.failure }
    }

    func runSoak(rounds: Int) async throws {
        let outcome = try await Soak.run(rounds: rounds, firstRequests: requests, store: store)
        var table = TextTable([
            ("round", .right), ("requests", .right), ("s", .right), ("resident", .right), ("sockets", .right), ("other fds", .right),
            ("typed errors", .right), ("unanswered", .right), ("wrong", .right),
        ])
        for (index, round) in outcome.rounds.enumerated() {
            table.append([
                String(index + 1), String(round.requests), String(format: "%.1f", round.seconds), ByteSize.format(round.residentBytes),
                String(round.openDescriptors.sockets), String(round.openDescriptors.others), String(round.report.typedErrors), String(round.report.unanswered),
                String(round.report.wrongImages),
            ])
        }
        print(table.render())
        print("soak: allowance over the first round \(ByteSize.format(outcome.allowanceBytes)), sockets at most \(outcome.socketBound); " + (outcome.passed ? "pass" : "FAIL"))
        for violation in outcome.violations { print("  " + violation) }
        if !outcome.passed { throw ExitCode.failure }
    }
}
