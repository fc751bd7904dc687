import Foundation
import ImagePipeline
import Workloads

/// Where a command's results go: tables on the terminal (plain or Markdown) or results.json on
/// stdout, and a results folder claimed before any work and written when the run is done.
public struct ResultsOutput: Sendable {
    /// The folder asked for; nil for a new `results/<timestamp>`.
    public var directory: String?
    public var json = false
    public var markdown = false
    public var noFiles = false

    public init() {}

    /// The folder this process claimed for its results.
    private static let claimed = Locked<ResultsFolder?>(nil)
    /// What the run reads, hashed beside the run and recorded in the results.
    private static let inputs = Locked<InputFile.Pending?>(nil)

    /// The command line as typed, for results files, its paths reduced to file names.
    public static var commandLine: String {
        PathNames.command(["imagecache-bench"] + CommandLine.arguments.dropFirst())
    }

    /// Claims the results folder before any work (unless --no-files): refused when it is
    /// or holds one of `inputs`, when another run is writing into it, or when it holds
    /// other files.
    public func claim(inputs: [String]) throws {
        Self.inputs.withLock { $0 = InputFile.Pending(inputs) }
        guard !noFiles else { return }
        let folder: ResultsFolder
        do {
            // Without --output, a timestamped folder no earlier run has: two runs in one second never share one.
            folder = try directory.map { try ResultsFolder(claiming: $0, inputs: inputs) }
                ?? ResultsFolder(claiming: ResultsWriter.newTimestampedDirectory(), inputs: inputs, madeHere: true)
        } catch { throw UsageError("--output \(PlainFailure.clause(error))") }
        Self.claimed.withLock { $0 = folder }
        ExitCleanup.also { folder.abandonIfUnpublished() }
    }

    /// Prints a table in the chosen form.
    public func show(_ title: String, _ table: TextTable) {
        guard !json, !table.rows.isEmpty else { return }
        print(markdown ? "### \(title)\n\n" + table.markdown() + "\n" : "== \(title)\n" + table.render() + "\n")
    }

    /// Writes the results folder (unless --no-files) and prints where it went, or the JSON.
    public func finish(_ results: BenchResults) throws {
        var results = results
        results.deriveFigures()
        if results.inputs == nil { results.inputs = Self.inputs.withLock { $0 }?.files ?? [] }
        if json {
            print(try ResultsJSON.text(results))
        } else {
            let summary = RunSummary.lines(results)
            if !summary.isEmpty { print((markdown ? "### Summary\n\n```\n" : "== summary\n") + summary.joined(separator: "\n") + (markdown ? "\n```" : "")) }
        }
        guard !noFiles else { return }
        if Self.claimed.withLock({ $0 == nil }) { try claim(inputs: []) }
        guard let folder = Self.claimed.withLock({ $0 }) else { return }
        let (files, notes) = try ResultsWriter.write(results, to: folder)
        for note in notes { FileHandle.standardError.write(Data((note + "\n").utf8)) }
        if !json {
            let named = ["report.md", "results.json"].filter(files.contains)
            let others = files.count - named.count
            print("results: \(folder.path)/ (" + (named + (others > 0 ? ["\(others) more: CSVs, charts"] : [])).joined(separator: ", ") + ")")
        }
    }
}
