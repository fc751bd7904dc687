import Foundation

/// Writes a run's results where people and machines find them:
/// `results.json` (versioned), one CSV per section, `report.md` for pull
/// requests, and the charts.
public enum ResultsWriter {
    /// `results/<UTC timestamp>` under `base`.
    public static func timestampedDirectory(base: String = "results") -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return base + "/" + formatter.string(from: Date())
    }

    /// Writes everything; returns the files written and notes (a skipped chart, say).
    @discardableResult
    public static func write(_ results: BenchResults, to directory: String) throws -> (files: [String], notes: [String]) {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var files: [String] = []
        var notes: [String] = []
        try ResultsJSON.encoder().encode(results).write(to: URL(fileURLWithPath: directory + "/results.json"))
        files.append("results.json")

        var markdown = "# ImageCacheBench results\n\n`\(results.command)` on \(results.machine.cores) cores, \(results.createdAt)\n"
        func section(_ name: String, _ title: String, _ human: TextTable, _ machine: TextTable) throws {
            guard !human.rows.isEmpty else { return }
            try machine.csv().write(toFile: directory + "/\(name).csv", atomically: true, encoding: .utf8)
            files.append("\(name).csv")
            markdown += "\n## \(title)\n\n" + human.markdown() + "\n"
        }
        try section("simulations", "Simulations", ReportTables.simulations(results.simulations),
                    ReportTables.simulations(results.simulations, style: .machine))
        try section("keys", "Key strategies", ReportTables.keys(results.keyComparisons),
                    ReportTables.keys(results.keyComparisons, style: .machine))
        try section("sweep", "Miss-ratio curves", ReportTables.sweep(results.sweeps), ReportTables.sweep(results.sweeps, style: .machine))
        try section("memory-warnings", "Memory warnings", ReportTables.warnings(results.memoryWarnings),
                    ReportTables.warnings(results.memoryWarnings, style: .machine))
        try section("replay", "Live replay", ReportTables.replays(results.replays), ReportTables.replays(results.replays, style: .machine))

        let charts = try Charts.missRatioCurves(results.sweeps, in: directory) + Charts.latency(results.replays, in: directory)
            + Charts.memory(results.replays, in: directory)
        if !charts.isEmpty {
            if Charts.gnuplot == nil {
                notes.append(Charts.missingNote)
            } else {
                files += charts
                markdown += "\n## Charts\n\n" + charts.map { "![\($0)](\($0))" }.joined(separator: "\n") + "\n"
            }
        }
        try markdown.write(toFile: directory + "/report.md", atomically: true, encoding: .utf8)
        files.append("report.md")
        return (files, notes)
    }
}
