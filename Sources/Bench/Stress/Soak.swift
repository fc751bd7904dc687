import Foundation

/// Stress runs of growing length (every fault at once), with the process's
/// resident memory and open descriptors sampled after each: memory must stay
/// within the first round's plus a stated allowance, descriptors other than
/// sockets must not grow, and sockets must stay within what the connection pool
/// may hold open at rest (they vary from round to round with it).
public enum Soak {
    public struct Round: Codable, Sendable {
        public var requests: Int
        public var seconds: Double
        public var residentBytes: Int
        public var openDescriptors: OpenDescriptors
        public var report: StressReport
    }

    public struct Outcome: Codable, Sendable {
        public var rounds: [Round]
        /// Resident growth allowed after the first round: the memory tier's limit plus heap slack.
        public var allowanceBytes: Int
        /// Sockets allowed open at rest: both ends of every pooled connection, the origin's listeners.
        public var socketBound: Int
        public var violations: [String]

        public var passed: Bool { violations.isEmpty }
    }

    public static func run(
        rounds: Int, firstRequests: Int, store: String, progress: ProgressLine = ProgressLine()
    ) async throws -> Outcome {
        let scenario = StressScenario(.everything)
        let allowance = scenario.memoryBytes + (64 << 20)
        let socketBound = 2 * StressRunner.connectionsPerHost + 4
        let sized = (0..<rounds).map { round in
            var sized = scenario
            sized.requests = firstRequests << round
            return sized
        }
        // One origin for every round; the process is sampled as each round ends.
        var results: [Round] = []
        var violations: [String] = []
        var start = ContinuousClock.now
        _ = try await StressRunner.run(sized, store: store, progress: progress) { report in
            results.append(Round(
                requests: report.requests, seconds: (ContinuousClock.now - start).seconds,
                residentBytes: ProcessMetrics.residentBytes, openDescriptors: ProcessMetrics.openDescriptors, report: report))
            violations += report.violations.map { "round \(results.count): \($0)" }
            start = ContinuousClock.now
        }
        progress.finish()
        for (index, round) in results.enumerated() where round.openDescriptors.sockets > socketBound {
            violations.append("round \(index + 1): \(round.openDescriptors.sockets) open sockets, more than the pool's \(socketBound)")
        }
        if let first = results.first {
            for (index, round) in results.enumerated().dropFirst() {
                if round.residentBytes > first.residentBytes + allowance {
                    violations.append("round \(index + 1): resident \(round.residentBytes >> 20) MiB, over the first round's \(first.residentBytes >> 20) MiB + \(allowance >> 20) MiB")
                }
                if round.openDescriptors.others > first.openDescriptors.others + 4 {
                    violations.append("round \(index + 1): \(round.openDescriptors.others) open descriptors besides sockets, \(first.openDescriptors.others) after the first round")
                }
            }
        }
        return Outcome(rounds: results, allowanceBytes: allowance, socketBound: socketBound, violations: violations)
    }
}
