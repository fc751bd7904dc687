import Foundation
import Workloads

/// `gate`: a run's figures against a baseline's, or the run written as the new baseline.
public struct GateJob: Sendable {
    /// results.json of the run to judge, and the baseline.
    public var results = ""
    public var baseline = ""
    public var thresholds = Gate.Thresholds()
    /// Write the run's figures as the baseline instead of comparing.
    public var updatesBaseline = false
    public var json = false

    public init() {}

    /// A figure regressed past its threshold.
    public struct Regressed: Error, CustomStringConvertible {
        public let count: Int
        public var description: String { "gate: \(count) figure\(count == 1 ? "" : "s") regressed" }
    }

    /// The checks that need nothing read.
    public func validate() throws {
        guard updatesBaseline else { return }
        let folder = OutputFile.parent(of: baseline)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
              FileManager.default.isWritableFile(atPath: folder) else {
            throw UsageError("--baseline \(baseline): \(folder) is not a writable folder")
        }
    }

    public func run() throws {
        if updatesBaseline {
            var figures = try Gate.load(results)
            figures.keepOnlyFigures()
            try OutputFile.write(Data(ResultsJSON.text(figures).utf8), to: baseline)
            print("gate: wrote \(figures.figures.count) figures to \(baseline)")
            return
        }
        let outcome = try Gate.compare(try Gate.load(results), baseline: try Gate.load(baseline), thresholds: thresholds)
        print(json ? try ResultsJSON.text(outcome) : outcome.report)
        guard outcome.compared > 0 else { throw UsageError("the baseline has no figures to compare") }
        if !outcome.passed { throw Regressed(count: outcome.regressions.count) }
    }
}
