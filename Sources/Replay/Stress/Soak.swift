import Foundation

/// Stress runs of growing length (every fault at once), with the process's
/// resident memory and open descriptors sampled after each: memory must stay
/// within the first round's plus a stated allowance, descriptors must not grow.
public enum Soak {
    public struct Round: Codable, Sendable {
        public var requests: Int
        public var seconds: Double
        public var residentBytes: Int
        public var openFileDescriptors: Int
        public var report: StressReport
    }

    public struct Outcome: Codable, Sendable {
        public var rounds: [Round]
        /// Resident growth allowed after the first round: the memory tier's limit plus heap slack.
        public var allowanceBytes: Int
        public var violations: [String]

        public var passed: Bool { violations.isEmpty }
    }

    public static func run(
        rounds: Int, firstRequests: Int, store: String, progress: ProgressLine = ProgressLine()
    ) async throws -> Outcome {
        var results: [Round] = []
        var violations: [String] = []
        let scenario = StressScenario(.everything)
        let allowance = scenario.memoryBytes + (64 << 20)
        for round in 0..<rounds {
            let requests = firstRequests << round
            progress.update("soak: round \(round + 1) of \(rounds), \(requests) requests")
            let start = ContinuousClock.now
            var sized = scenario
            sized.requests = requests
            let report = try await StressRunner.run([sized], store: store, progress: ProgressLine(enabled: false))[0]
            results.append(Round(
                requests: requests, seconds: (ContinuousClock.now - start).seconds, residentBytes: ProcessMetrics.residentBytes,
                openFileDescriptors: ProcessMetrics.openFileDescriptors, report: report))
            violations += report.violations.map { "round \(round + 1): \($0)" }
        }
        progress.finish()
        if let first = results.first {
            for (index, round) in results.enumerated().dropFirst() {
                if round.residentBytes > first.residentBytes + allowance {
                    violations.append("round \(index + 1): resident \(round.residentBytes >> 20) MiB, over the first round's \(first.residentBytes >> 20) MiB + \(allowance >> 20) MiB")
                }
                if round.openFileDescriptors > first.openFileDescriptors + 4 {
                    violations.append("round \(index + 1): \(round.openFileDescriptors) open descriptors, \(first.openFileDescriptors) after the first round")
                }
            }
        }
        return Outcome(rounds: results, allowanceBytes: allowance, violations: violations)
    }
}
