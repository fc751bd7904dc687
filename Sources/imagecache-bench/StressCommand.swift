import ArgumentParser
import Foundation
import Replay

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
    @Option(help: "Requests per scenario.") var requests = 2_000
    @Option(help: "Distinct images the requests share.") var keys = 24
    @Option(help: "Requests in flight at most.") var concurrency = 128
    @Option(help: "Directory where the origin keeps synthesised images.") var store = Recording.defaultStore
    @Flag(help: "Print the reports as JSON.") var json = false

    func validate() throws {
        _ = try kinds()
        guard requests >= 1, keys >= 1, concurrency >= 1 else { throw ValidationError("--requests, --keys and --concurrency must be at least 1") }
    }

    func kinds() throws -> [StressScenario.Kind] {
        if scenario.lowercased() == "all" { return StressScenario.Kind.allCases }
        return try CacheOptions.list(scenario).map {
            guard let kind = StressScenario.Kind(rawValue: $0.lowercased()) else {
                throw ValidationError("unknown scenario \"\($0)\"; choose from \(StressScenario.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
    }

    func run() async throws {
        let scenarios = try kinds().map { StressScenario($0, requests: requests, keys: keys, concurrency: concurrency) }
        let reports = try await StressRunner.run(scenarios, store: store)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(reports), as: UTF8.self))
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
}
