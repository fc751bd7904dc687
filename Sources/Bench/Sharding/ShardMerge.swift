import Foundation

/// Combines the `results.json` of a run's shards into the results of the whole run:
/// the sections concatenated in shard order (each shard did a contiguous range of
/// the run's units, in the order the unsharded run writes them), the datasets
/// once each, the figures derived again. Refuses parts that do not make one run.
public enum ShardMerge {
    public struct MergeError: Error, CustomStringConvertible, Equatable {
        public let reason: String
        public var description: String { reason }
    }

    /// `parts`: each shard's results and where it came from (for messages).
    public static func merge(_ parts: [(source: String, results: BenchResults)]) throws(MergeError) -> BenchResults {
        guard let first = parts.first else { throw MergeError(reason: "no results to merge") }
        var records: [ShardRecord] = []
        for part in parts {
            guard let record = part.results.shard else {
                throw MergeError(reason: "\(part.source) is not a shard's results (it has no `shard`: run the command with --shard i/n)")
            }
            records.append(record)
        }
        // The output folder differs from shard to shard and changes nothing measured (as for `gate`).
        let count = records[0].count, invocation = Gate.invocation(of: records[0].command)
        let command = (["imagecache-bench"] + invocation).joined(separator: " ")
        for (part, record) in zip(parts, records) {
            if record.count != count {
                throw MergeError(reason: "\(part.source) is shard \(record.index)/\(record.count), \(first.source) one of \(count)")
            }
            if Gate.invocation(of: record.command) != invocation {
                throw MergeError(reason: "\(part.source) ran `\(record.command)`, \(first.source) `\(records[0].command)`: shards of different runs")
            }
            if part.results.tool?.commit != first.results.tool?.commit {
                throw MergeError(reason: "\(part.source) was made by \(part.results.tool?.commit ?? "an unknown commit"), \(first.source) by \(first.results.tool?.commit ?? "an unknown commit"): the shards of one run need one build")
            }
        }
        for part in parts {
            // The figures a part's sections give, as the merged run will derive them.
            var derived = part.results
            derived.deriveFigures()
            do { try derived.checkFigures(source: part.source) } catch { throw MergeError(reason: error.description) }
            // One command line reads its inputs in one order: the shards' lists pair up place by place.
            for (input, other) in zip(part.results.inputs ?? [], first.results.inputs ?? []) {
                guard other.sha256 != input.sha256 else { continue }
                throw MergeError(reason: "\(input.path) changed between the shards: \(part.source) read \(input.bytes) bytes (SHA-256 \(input.sha256.prefix(12))…), "
                    + "\(first.source) \(other.bytes) bytes (\(other.sha256.prefix(12))…); run every shard on the same files")
            }
        }
        let indices = records.map(\.index)
        if let repeated = Dictionary(grouping: indices, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw MergeError(reason: "shard \(repeated)/\(count) is given twice")
        }
        let missing = (1...count).filter { !indices.contains($0) }
        guard missing.isEmpty else {
            throw MergeError(reason: "shard\(missing.count == 1 ? "" : "s") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) missing")
        }
        var merged = BenchResults(command: command)
        merged.tool = first.results.tool
        merged.machine = first.results.machine
        merged.inputs = first.results.inputs
        var seen = Set<String>()
        for (_, part) in zip(records, parts).sorted(by: { $0.0.index < $1.0.index }).map(\.1) {
            merged.datasets += part.datasets.filter { seen.insert($0.name).inserted }
            merged.simulations += part.simulations
            merged.keyComparisons += part.keyComparisons
            merged.sweeps += part.sweeps
            merged.memoryWarnings += part.memoryWarnings
            if let apps = part.apps { merged.apps = (merged.apps ?? []) + apps }
            if let libraries = part.libraries { merged.libraries = (merged.libraries ?? []) + libraries }
            merged.replays += part.replays
        }
        merged.deriveFigures()
        return merged
    }
}
