extension ReportTables {
    /// One row per stress scenario: its answers, its tiers at rest and its verdict.
    public static func stress(_ reports: [StressReport]) -> TextTable {
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
        return table
    }

    /// One row per soak round: its memory, descriptors and answers.
    public static func soak(_ outcome: Soak.Outcome) -> TextTable {
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
        return table
    }
}
