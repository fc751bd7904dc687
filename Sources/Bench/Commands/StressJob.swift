import Foundation

/// `stress`: bounded scenarios on the live pipeline, or a soak of every fault at once.
public struct StressJob: Sendable {
    /// Scenarios, comma-separated, or all.
    public var scenario = "all"
    public var requests = 2_000
    public var images = 24
    public var concurrency = 128
    public var store = Recording.defaultStore
    public var json = false
    /// A soak of this many rounds instead, doubling `requests` each round.
    public var soak: Int?

    public init() {}

    /// An invariant broke.
    public struct Failed: Error, CustomStringConvertible {
        public let description: String
    }

    public func kinds() throws -> [StressScenario.Kind] {
        if scenario.lowercased() == "all" { return StressScenario.Kind.allCases }
        return try SettingParsing.list(scenario, option: "--scenario").map {
            guard let kind = StressScenario.Kind(rawValue: $0.lowercased()) else {
                throw UsageError("unknown scenario \"\($0)\"; choose from \(StressScenario.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return kind
        }
    }

    /// A soak's rounds: each doubles `requests`, and its last round is held to a scenario's most.
    public func validate() throws {
        _ = try kinds()
        guard let soak else { return }
        guard (1...20).contains(soak) else { throw UsageError("--soak must be from 1 to 20, not \(soak)") }
        guard requests <= StressScenario.maximumRequests >> (soak - 1) else {
            throw UsageError("--soak \(soak) doubles --requests \(soak - 1) times, past \(StressScenario.maximumRequests) requests a round; give fewer rounds or requests")
        }
    }

    public func run() async throws {
        if let soak { return try await runSoak(rounds: soak) }
        let scenarios = try kinds().map { StressScenario($0, requests: requests, keys: images, concurrency: concurrency) }
        let reports = try await StressRunner.run(scenarios, store: store)
        if json {
            print(try ResultsJSON.text(reports))
        } else {
            print(ReportTables.stress(reports).render())
            for report in reports where !report.passed {
                print("\(report.scenario): " + report.violations.joined(separator: "; "))
            }
        }
        let failed = reports.filter { !$0.passed }.map(\.scenario)
        if !failed.isEmpty { throw Failed(description: "stress: an invariant broke in \(failed.joined(separator: ", "))") }
    }

    private func runSoak(rounds: Int) async throws {
        let outcome = try await Soak.run(rounds: rounds, firstRequests: requests, store: store)
        print(ReportTables.soak(outcome).render())
        print("soak: allowance over the first round \(ByteSize.format(outcome.allowanceBytes)), sockets at most \(outcome.socketBound); " + (outcome.passed ? "pass" : "FAIL"))
        for violation in outcome.violations { print("  " + violation) }
        if !outcome.passed { throw Failed(description: "soak: \(outcome.violations.count) violation\(outcome.violations.count == 1 ? "" : "s")") }
    }
}
