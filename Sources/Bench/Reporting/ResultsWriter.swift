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

    /// Why a results folder cannot be used, naming it.
    public struct PlaceError: Error, CustomStringConvertible {
        public let directory: String
        public let reason: String
        public var description: String { "\(directory): \(reason)" }
    }

    /// The kinds of file a run writes at the top of its folder.
    static let writtenExtensions: Set<String> = ["json", "md", "csv", "svg", "dat", "gp"]

    /// Makes `directory` ready before any work: created if missing, writable, not
    /// inside a file. A folder holding an earlier run (its `results.json`) is
    /// emptied of that run's files, so no stale CSV or chart sits beside the new
    /// ones; a folder of other files is refused rather than mixed into.
    public static func prepare(_ directory: String) throws(PlaceError) {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: directory, isDirectory: &isFolder) {
            guard isFolder.boolValue else { throw PlaceError(directory: directory, reason: "a file, not a folder") }
        } else {
            var ancestor = (directory as NSString).deletingLastPathComponent
            while !ancestor.isEmpty, ancestor != "/", !manager.fileExists(atPath: ancestor, isDirectory: &isFolder) {
                ancestor = (ancestor as NSString).deletingLastPathComponent
            }
            if !ancestor.isEmpty, manager.fileExists(atPath: ancestor, isDirectory: &isFolder), !isFolder.boolValue {
                throw PlaceError(directory: directory, reason: "inside a file (\(ancestor) is a file)")
            }
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw PlaceError(directory: directory, reason: "cannot create the folder (\(error.localizedDescription))")
            }
        }
        guard manager.isWritableFile(atPath: directory) else { throw PlaceError(directory: directory, reason: "the folder is not writable") }
        let names = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
        guard !names.isEmpty else { return }
        guard names.contains("results.json") else {
            throw PlaceError(directory: directory, reason: "the folder holds other files; give a new or empty folder, or an earlier run's")
        }
        for name in names where writtenExtensions.contains((name as NSString).pathExtension) {
            do { try manager.removeItem(atPath: directory + "/" + name) } catch {
                throw PlaceError(directory: directory, reason: "cannot remove the earlier run's \(name) (\(error.localizedDescription))")
            }
        }
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
        try section("apps", "The apps as shipped and the fixed pipeline", ReportTables.apps(results.apps ?? []),
                    ReportTables.apps(results.apps ?? [], style: .machine))
        try section("app-defects", "What each defect cost", ReportTables.appDefects(results.apps ?? []),
                    ReportTables.appDefects(results.apps ?? [], style: .machine))
        try section("fidelity", "The datasets against the real responses", ReportTables.fidelity(results.fidelity ?? []),
                    ReportTables.fidelity(results.fidelity ?? [], style: .machine))
        try section("apps-live", "The apps as shipped, ported live, against the simulator", ReportTables.appsLive(results.appsLive ?? []),
                    ReportTables.appsLive(results.appsLive ?? []))
        if let recommendation = results.recommendation {
            try section("recommendation", "Recommended settings", ReportTables.recommendation(recommendation),
                        ReportTables.recommendation(recommendation))
            try section("recommendation-curves", "Curves behind the recommendation", ReportTables.recommendationCurves(recommendation),
                        ReportTables.recommendationCurves(recommendation, style: .machine))
            for snippet in recommendation.snippets {
                markdown += "\n### \(snippet.library)\n\n```swift\n\(snippet.code)\n```\n"
                    + snippet.cannotExpress.map { "- cannot express: \($0)\n" }.joined()
            }
        }
        try section("replay", "Live replay", ReportTables.replays(results.replays), ReportTables.replays(results.replays, style: .machine))

        let charts = try Charts.missRatioCurves(results.sweeps, in: directory) + Charts.latency(results.replays, in: directory)
            + Charts.memory(results.replays, in: directory) + Charts.recommendation(results.recommendation, in: directory)
            + Charts.apps(results.apps ?? [], in: directory)
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
