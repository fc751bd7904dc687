import Foundation
import Workloads

/// `merge`: the results folders of a run's shards combined into the whole run's.
public struct MergeJob: Sendable {
    /// The shards' results folders or results.json files, in any order.
    public var parts: [String] = []

    public init() {}

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: parts)
        let loaded = try parts.map { part -> (source: String, results: BenchResults) in
            var isFolder: ObjCBool = false
            let file = FileManager.default.fileExists(atPath: part, isDirectory: &isFolder) && isFolder.boolValue ? part + "/results.json" : part
            return (part, try Gate.load(file))
        }
        let results: BenchResults
        do { results = try ShardMerge.merge(loaded) } catch { throw UsageError("merge: \(PlainFailure.clause(error))") }
        FileHandle.standardError.write(Data("merge: \(parts.count) shards of `\(results.command)`\n".utf8))
        output.show("simulate", ReportTables.simulations(results.simulations))
        output.show("keys", ReportTables.keys(results.keyComparisons))
        output.show("sweep", ReportTables.sweep(results.sweeps))
        output.show("memory warnings", ReportTables.warnings(results.memoryWarnings))
        output.show("live replay", ReportTables.replays(results.replays))
        try output.finish(results)
    }
}
