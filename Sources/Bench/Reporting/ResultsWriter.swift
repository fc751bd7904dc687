import Foundation
import ImagePipeline
import Workloads

/// Writes a run's results where people and machines find them:
/// `results.json` (versioned), one CSV per section, `report.md` for pull
/// requests, and the charts.
public enum ResultsWriter {
    /// `results/<UTC timestamp>` under `base`, made here and new: when a folder of that name
    /// exists (a run in the same second), `-2`, `-3`, … is added until the name is free.
    public static func newTimestampedDirectory(base: String = "results") throws(ResultsFolder.FolderError) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let stamp = base + "/" + formatter.string(from: Date())
        do { try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true) } catch {
            throw ResultsFolder.FolderError(path: base, reason: "cannot create the folder (\(PlainFailure.clause(error)))")
        }
        for attempt in 1...1_000 {
            let candidate = attempt == 1 ? stamp : "\(stamp)-\(attempt)"
            // mkdir fails on a name that exists, so two runs racing for one name get two.
            if mkdir(candidate, 0o777) == 0 { return candidate }
            guard errno == EEXIST else {
                throw ResultsFolder.FolderError(path: candidate, reason: "cannot create the folder (\(FileSystemError.reason(errno)))")
            }
        }
        throw ResultsFolder.FolderError(path: stamp, reason: "a thousand runs this second already have folders here; give --output")
    }

    /// The longest table `report.md` holds inline (characters of Markdown); the report stays
    /// under the 65,536 characters a GitHub comment takes.
    public static let inlineLimit = 12_000

    /// Writes everything into `folder`, whole (see `ResultsFolder`); returns the files
    /// written and notes (a skipped chart, say).
    @discardableResult
    public static func write(_ results: BenchResults, to folder: ResultsFolder) throws(ResultsFolder.FolderError) -> (files: [String], notes: [String]) {
        var files: [(name: String, contents: Data)] = []
        var notes: [String] = []

        var markdown = "# ImageCacheBench results\n\n`\(results.command)` on \(results.machine.cores) cores, \(results.createdAt)\n"
        let summary = RunSummary.lines(results)
        if !summary.isEmpty { markdown += "\n## Summary\n\n```\n" + summary.joined(separator: "\n") + "\n```\n" }
        // Sections folded, and a table too long for a pull-request comment only linked: its CSV has every row.
        func section(_ name: String, _ title: String, _ human: TextTable, _ machine: TextTable) {
            guard !human.rows.isEmpty else { return }
            files.append(("\(name).csv", Data(machine.csv().utf8)))
            let table = human.markdown()
            let rows = "\(human.rows.count) row\(human.rows.count == 1 ? "" : "s")"
            markdown += "\n## \(title)\n\n" + (table.count > inlineLimit
                ? "\(rows) in [\(name).csv](\(name).csv).\n"
                : "<details><summary>\(rows) (also in [\(name).csv](\(name).csv))</summary>\n\n" + table + "\n</details>\n")
        }
        section("simulations", "Simulations", ReportTables.simulations(results.simulations),
                ReportTables.simulations(results.simulations, style: .machine))
        section("keys", "Key strategies", ReportTables.keys(results.keyComparisons),
                ReportTables.keys(results.keyComparisons, style: .machine))
        section("sweep", "Miss-ratio curves", ReportTables.sweep(results.sweeps), ReportTables.sweep(results.sweeps, style: .machine))
        section("memory-warnings", "Memory warnings", ReportTables.warnings(results.memoryWarnings),
                ReportTables.warnings(results.memoryWarnings, style: .machine))
        section("apps", "The apps as shipped and the fixed pipeline", ReportTables.apps(results.apps ?? []),
                ReportTables.apps(results.apps ?? [], style: .machine))
        section("app-defects", "What each defect cost", ReportTables.appDefects(results.apps ?? []),
                ReportTables.appDefects(results.apps ?? [], style: .machine))
        section("libraries", "The libraries' defaults against the best settings at their memory", ReportTables.libraries(results.libraries ?? []),
                ReportTables.libraries(results.libraries ?? [], style: .machine))
        section("fidelity", "The datasets against the real responses", ReportTables.fidelity(results.fidelity ?? []),
                ReportTables.fidelity(results.fidelity ?? [], style: .machine))
        section("apps-live", "The apps as shipped, ported live, against the simulator", ReportTables.appsLive(results.appsLive ?? []),
                ReportTables.appsLive(results.appsLive ?? []))
        if let recommendation = results.recommendation {
            section("recommendation", "Recommended settings", ReportTables.recommendation(recommendation),
                        ReportTables.recommendation(recommendation))
            section("recommendation-curves", "Curves behind the recommendation", ReportTables.recommendationCurves(recommendation),
                        ReportTables.recommendationCurves(recommendation, style: .machine))
            for snippet in recommendation.snippets {
                markdown += "\n### \(snippet.library)\n\n```swift\n\(snippet.code)\n```\n"
                    + snippet.cannotExpress.map { "- cannot express: \($0)\n" }.joined()
            }
        }
        section("replay", "Live replay", ReportTables.replays(results.replays), ReportTables.replays(results.replays, style: .machine))

        // Charts are drawn in the staging folder, beside the files above, and the report that
        // names them is written last.
        let written = try folder.publish(files) { staging in
            let charts = try Charts.missRatioCurves(results.sweeps, in: staging) + Charts.latency(results.replays, in: staging)
                + Charts.memory(results.replays, in: staging) + Charts.recommendation(results.recommendation, in: staging)
                + Charts.apps(results.apps ?? [], in: staging)
            var report = markdown
            var drawn: [String] = []
            if !charts.isEmpty {
                if Charts.gnuplot == nil {
                    notes.append(Charts.missingNote)
                } else {
                    drawn = charts
                    report += "\n## Charts\n\n" + charts.map { "![\($0)](\($0))" }.joined(separator: "\n") + "\n"
                }
            }
            try report.write(toFile: staging + "/report.md", atomically: false, encoding: .utf8)
            let dataFiles = charts.flatMap { chart -> [String] in
                let base = (chart as NSString).deletingPathExtension
                return [base + ".dat", base + ".gp"]
            }
            // A chart gnuplot could not draw is left out rather than failing the run.
            let others = (dataFiles + drawn + ["report.md"]).filter { FileManager.default.fileExists(atPath: staging + "/" + $0) }
            // results.json last, naming every file of the run, itself included.
            var listed = results
            listed.files = files.map(\.name) + others + ["results.json"]
            let json: Data
            do { json = try ResultsJSON.encoder().encode(listed) } catch {
                throw ResultsFolder.FolderError(path: folder.path + "/results.json", reason: "cannot encode the results (\(PlainFailure.clause(error)))")
            }
            try folder.write(json, to: staging + "/results.json", shownAs: folder.path + "/results.json")
            return others + ["results.json"]
        }
        return (written, notes)
    }
}
