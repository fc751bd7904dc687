import Foundation
import Workloads

/// Compares a run's figures with a baseline's and says what regressed.
public enum Gate {
    public struct Thresholds: Sendable {
        /// Deterministic figures may be worse by at most this much, relative to the baseline (default: nothing).
        public var deterministicRelative = 1e-9
        /// Timings may be worse by at most this share (default 50%: CI machines are noisy).
        public var timingRelative = 0.5
        /// Compare timings at all (CI gates only the deterministic figures).
        public var includesTimings = true
        /// When the runs were made by different commands, compare the figures both have
        /// instead of refusing.
        public var comparesSharedFiguresOnly = false

        public init() {}
    }

    public struct Finding: Sendable, Equatable, Codable {
        public var id: String
        public var baseline: Double
        public var current: Double?
        public var allowed: Double

        public var line: String {
            guard let current else { return "\(id): missing (baseline \(Self.format(baseline)))" }
            let change = baseline == 0 ? "" : String(format: " (%+.2f%%)", (current - baseline) / abs(baseline) * 100)
            return "\(id): \(Self.format(baseline)) → \(Self.format(current))\(change), allowed \(Self.format(allowed))"
        }

        static func format(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.6g", value)
        }
    }

    public struct Outcome: Sendable, Codable {
        public var compared = 0
        public var regressions: [Finding] = []
        public var improvements: [Finding] = []
        /// In the run but not the baseline: not judged.
        public var new: [String] = []
        /// Baseline figures left out because another command made the baseline (with `comparesSharedFiguresOnly`).
        public var notInThisRun = 0
        /// The baseline's tool and this run's, when they differ: a figure that moved may have moved with the tool.
        public var toolChange: String?

        public var passed: Bool { regressions.isEmpty }

        private enum CodingKeys: String, CodingKey { case passed, compared, regressions, improvements, new, notInThisRun, toolChange }

        public init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            compared = try container.decode(Int.self, forKey: .compared)
            regressions = try container.decode([Finding].self, forKey: .regressions)
            improvements = try container.decode([Finding].self, forKey: .improvements)
            new = try container.decode([String].self, forKey: .new)
            notInThisRun = try container.decode(Int.self, forKey: .notInThisRun)
            toolChange = try container.decodeIfPresent(String.self, forKey: .toolChange)
        }

        /// The verdict for machines (`gate --json`): `passed` first, then every finding.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(passed, forKey: .passed)
            try container.encode(compared, forKey: .compared)
            try container.encode(regressions, forKey: .regressions)
            try container.encode(improvements, forKey: .improvements)
            try container.encode(new, forKey: .new)
            try container.encode(notInThisRun, forKey: .notInThisRun)
            try container.encodeIfPresent(toolChange, forKey: .toolChange)
        }

        public var report: String {
            var lines = ["gate: compared \(compared) figures: \(regressions.count) regressed, \(improvements.count) improved, \(new.count) new"]
            if let toolChange { lines += ["gate: \(toolChange)"] }
            if notInThisRun > 0 {
                lines += ["gate: the runs were made by different commands; compared on the figures both have (\(notInThisRun) of the baseline's are not in this run)"]
            }
            if !regressions.isEmpty { lines += ["regressions:"] + regressions.map { "  ✗ " + $0.line } }
            if !improvements.isEmpty {
                lines += ["improvements (update the baseline to keep them):"] + improvements.prefix(20).map { "  ✓ " + $0.line }
            }
            return lines.joined(separator: "\n")
        }
    }

    /// Judges `current` against `baseline`. A figure the run lacks is a regression
    /// when the same command made both; when different commands did, the runs are
    /// refused as not comparable, unless `thresholds.comparesSharedFiguresOnly`.
    public static func compare(_ current: BenchResults, baseline: BenchResults, thresholds: Thresholds = Thresholds()) throws -> Outcome {
        var outcome = Outcome()
        outcome.toolChange = toolChange(from: baseline.tool, to: current.tool)
        let now = Dictionary(current.figures.map { ($0.id, $0) }) { first, _ in first }
        let before = Set(baseline.figures.map(\.id))
        outcome.new = current.figures.map(\.id).filter { !before.contains($0) }
        let missing = baseline.figures.filter { now[$0.id] == nil }.count
        let sameCommand = invocation(of: current.command) == invocation(of: baseline.command)
        if missing > 0, !sameCommand {
            guard thresholds.comparesSharedFiguresOnly else {
                throw GateError.differentRuns(baseline: baseline.command, current: current.command, missing: missing)
            }
            outcome.notInThisRun = missing
        }
        for figure in baseline.figures where figure.kind == .deterministic || thresholds.includesTimings {
            if outcome.notInThisRun > 0, now[figure.id] == nil { continue }
            outcome.compared += 1
            let relative = figure.kind == .deterministic ? thresholds.deterministicRelative : thresholds.timingRelative
            let slack = max(abs(figure.value) * relative, figure.kind == .deterministic ? 1e-12 : 0)
            let allowed = figure.better == .higher ? figure.value - slack : figure.value + slack
            guard let value = now[figure.id]?.value else {
                outcome.regressions.append(Finding(id: figure.id, baseline: figure.value, current: nil, allowed: allowed))
                continue
            }
            let finding = Finding(id: figure.id, baseline: figure.value, current: value, allowed: allowed)
            let worse = figure.better == .higher ? value < allowed : value > allowed
            let better = figure.better == .higher ? value > figure.value + slack : value < figure.value - slack
            if worse { outcome.regressions.append(finding) } else if better { outcome.improvements.append(finding) }
        }
        return outcome
    }

    /// What differs between the tools that wrote two results files, in words; nil when nothing does
    /// (a commit is compared only when both files name one).
    static func toolChange(from baseline: ToolProvenance?, to current: ToolProvenance?) -> String? {
        func name(_ tool: ToolProvenance?) -> String {
            guard let tool else { return "a version that did not record itself" }
            return "imagecache-bench \(tool.version)" + (tool.commit.map { " (\($0.prefix(12)))" } ?? "")
        }
        guard baseline?.version != current?.version
            || (baseline?.commit != nil && current?.commit != nil && baseline?.commit != current?.commit) else { return nil }
        return "the baseline was written by \(name(baseline)), this run by \(name(current)): a figure that moved may have moved with the tool"
    }

    /// A command line without the program's path, the output folder and the folders its inputs are
    /// in, which do not change what a run measures (and which results files no longer record).
    static func invocation(of command: String) -> [String] {
        var words = command.split(separator: " ").map { PathNames.withoutFolders(String($0)) }.dropFirst().makeIterator()
        var kept: [String] = []
        while let word = words.next() {
            if word == "-o" || word == "--output" { _ = words.next(); continue }
            if word.hasPrefix("--output=") { continue }
            kept.append(word)
        }
        return kept
    }

    /// Reads a results file, with a clear error when it is not one or its figures cannot be judged.
    public static func load(_ path: String) throws -> BenchResults {
        guard let data = FileManager.default.contents(atPath: path) else { throw GateError.unreadable(path) }
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        do {
            let results = try decoder.decode(BenchResults.self, from: data)
            guard results.schema == BenchResults.currentSchema else {
                throw GateError.schema(path, found: results.schema)
            }
            try results.checkFigures(source: path)
            return results
        } catch let error as GateError {
            throw error
        } catch {
            throw GateError.malformed(path, PlainFailure.clause(error))
        }
    }
}

public enum GateError: Error, CustomStringConvertible {
    case unreadable(String)
    case malformed(String, String)
    case schema(String, found: Int)
    case nonFinite(String, id: String, value: Double)
    case duplicateFigure(String, id: String)
    case outOfRange(String, id: String, value: Double, range: ClosedRange<Double>)
    case differentRuns(baseline: String, current: String, missing: Int)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot read the results file"
        case .malformed(let path, let reason): "\(path): not an imagecache-bench results file (\(reason))"
        case .schema(let path, let found):
            "\(path): results schema \(found), this build writes \(BenchResults.currentSchema); record a new baseline"
        case .nonFinite(let path, let id, let value): "\(path): figure \(id) is \(value), not a number gate can judge"
        case .duplicateFigure(let path, let id): "\(path): figure \(id) appears more than once"
        case .outOfRange(let path, let id, let value, let range):
            "\(path): figure \(id) is \(Gate.Finding.format(value)), outside what it can be ("
                + (range.upperBound == 1 ? "a ratio from 0 to 1" : "a count or size, at least 0") + "): a damaged or edited results file"
        case .differentRuns(let baseline, let current, let missing):
            "the baseline was made by `\(baseline)`, this run by `\(current)`; \(missing) of the baseline's figures "
                + "are not in this run. Gate a run of the baseline's command, or pass --shared-figures-only to compare the figures both have"
        }
    }
}
