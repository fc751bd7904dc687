import Foundation
import CacheSimulation

/// Everything one bench run measured: `results.json`, versioned. Sections are
/// filled by the commands that ran; `figures` flattens the ones `gate` compares.
public struct BenchResults: Codable, Sendable {
    /// Bumped when a field changes meaning or goes away.
    public static let currentSchema = 1

    public var schema = currentSchema
    public var createdAt: String
    public var command: String
    /// The tool's version and commit; absent in files written before it was recorded.
    public var tool: ToolProvenance?
    public var machine: Machine
    /// The files the run read, with their contents' hashes; absent in files written before they were recorded.
    public var inputs: [InputFile]?
    /// Set when the run was one shard of a larger one (`--shard`); absent otherwise.
    public var shard: ShardRecord?
    public var datasets: [DatasetSummary] = []
    public var simulations: [SimulationRow] = []
    public var keyComparisons: [KeyComparisonRow] = []
    public var sweeps: [SweepPoint] = []
    public var memoryWarnings: [WarningComparisonRow] = []
    /// The apps as shipped against the fixed pipeline; absent in files written before it was measured.
    public var apps: [AppComparisonRow]?
    /// Each library's defaults against the best settings at the memory they held (`apps`, the suite); absent otherwise.
    public var libraries: [LibraryComparisonRow]?
    /// The apps' pipelines as shipped, ported live, each beside its preset's simulation (`apps`); absent otherwise.
    public var appsLive: [AppLiveCheck]?
    /// Each app dataset's image population against the real responses' (`fidelity`); absent otherwise.
    public var fidelity: [FidelityRow]?
    /// Settings recommended for the traces (`recommend`); absent otherwise.
    public var recommendation: Recommendation?
    /// Each trace's own network, fitted to its recorded fetch times (`simulate --network recorded`); absent otherwise.
    public var recordedNetworks: [RecordedNetworkRow]?
    public var replays: [LiveReplayReport] = []
    public var figures: [Figure] = []
    /// The run judged against a baseline (`suite --baseline`), when it was.
    public var gate: GateVerdict?
    /// The files the run wrote into its results folder, `results.json` among them: a later run
    /// into the same folder replaces these and nothing else. Absent in files written before it
    /// was recorded, and in results printed rather than written.
    public var files: [String]?

    /// What `gate` said of this run's deterministic figures against a baseline.
    public struct GateVerdict: Codable, Sendable, Equatable {
        public var baseline: String
        public var compared: Int
        public var regressions: [String]
        public var improvements: Int
        public var new: Int

        public init(baseline: String, _ outcome: Gate.Outcome) {
            self.baseline = baseline
            compared = outcome.compared
            regressions = outcome.regressions.map(\.line)
            improvements = outcome.improvements.count
            new = outcome.new.count
        }
    }

    public struct Machine: Codable, Sendable {
        public var cores: Int
        public var memoryBytes: UInt64
        public var os: String

        public static var current: Machine {
            Machine(
                cores: ProcessInfo.processInfo.activeProcessorCount, memoryBytes: ProcessInfo.processInfo.physicalMemory,
                os: ProcessInfo.processInfo.operatingSystemVersionString)
        }
    }

    public struct DatasetSummary: Codable, Sendable {
        public var name: String
        public var app: String
        public var sessions: Int
        public var requests: Int
        public var urls: Int
        public var contents: Int
    }

    public init(command: String) {
        createdAt = ISO8601DateFormatter().string(from: Date())
        self.command = command
        tool = .current
        machine = .current
    }

    public mutating func add(_ figure: Figure) { figures.append(figure) }
}

/// One number `gate` can compare with a baseline.
public struct Figure: Codable, Sendable, Equatable {
    /// Stable name: "simulate/vanilladin.jsonl.gz/normalized+processing/lru/100MiB/150MB/purge-all/hitRatio".
    public var id: String
    public var value: Double
    public var kind: Kind
    public var better: Direction

    public enum Kind: String, Codable, Sendable {
        /// The same on every machine for the same code and data: gated near exactly.
        case deterministic
        /// A measurement of speed or memory: gated with a generous relative threshold.
        case timing
    }

    public enum Direction: String, Codable, Sendable { case higher, lower }

    public init(_ id: String, _ value: Double, kind: Kind = .deterministic, better: Direction) {
        self.id = id
        self.value = value
        self.kind = kind
        self.better = better
    }
}

extension RecordedWorkload {
    public var summary: BenchResults.DatasetSummary {
        .init(name: name, app: header.app, sessions: sessions, requests: requests.count, urls: urls.count, contents: contents.count)
    }
}
