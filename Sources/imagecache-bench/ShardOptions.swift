import ArgumentParser
import Bench
import Foundation
import Workloads

extension Shard {
    /// `i/n`, with the reason when it is not one.
    static func parse(_ text: String) throws -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw ValidationError("--shard is i/n, part i of n (1/4 … 4/4), not '\(text)'")
        }
        guard count >= 1, count <= 1_000_000 else { throw ValidationError("--shard \(text): n, the number of parts, is from 1 to 1000000") }
        guard let shard = Shard(index: index, count: count) else {
            throw ValidationError("--shard \(text): i, the part, is from 1 to n (\(count))")
        }
        return shard
    }
}

/// `--shard i/n`: one part of a run, to spread it over machines; `merge` combines the parts.
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Run only part i of n of this run's units (1/4 … 4/4), for machines or jobs working at once; `merge` combines the parts' folders.",
        discussion: "simulate's units are its (trace, key strategy, memory size) groups, sweep's its (trace, size) points, suite's its datasets; part i takes a contiguous range, so merged results equal the unsharded run's exactly."),
        transform: Shard.parse)
    var shard: Shard?

    /// Marks the results as this shard's, with the command all the shards run together.
    func record(in results: inout BenchResults) {
        guard let shard else { return }
        results.shard = ShardRecord(shard, command: Self.commandWithoutShard)
    }

    /// Names must tell the traces apart for merged sections to be told apart. A part with
    /// no units (a run of 3 units in 4 parts) still runs, so `merge` finds every part,
    /// and says so rather than writing empty results without a word.
    func check(traceNames: [String], units: Int, unitName: String) throws {
        guard let shard else { return }
        let owned = shard.units(of: units)
        if owned.isEmpty {
            FileHandle.standardError.write(Data(("shard \(shard): this run has \(units) unit\(units == 1 ? "" : "s") (\(unitName)) for \(shard.count) parts, "
                + "and this part has none of them: its results are empty (merge still wants them; at most \(units) parts give every part work)\n").utf8))
        }
        var seen = Set<String>()
        if let repeated = traceNames.first(where: { !seen.insert($0).inserted }) {
            throw ValidationError("--shard: two traces are named \(repeated); give traces distinct file names")
        }
    }

    /// The command line as typed, without `--shard i/n` or `--shard=i/n`.
    static var commandWithoutShard: String {
        var arguments: [String] = []
        var skipNext = false
        for argument in CommandLine.arguments.dropFirst() {
            if skipNext { skipNext = false; continue }
            if argument == "--shard" { skipNext = true; continue }
            if argument.hasPrefix("--shard=") { continue }
            arguments.append(argument)
        }
        return (["imagecache-bench"] + arguments).joined(separator: " ")
    }
}

struct MergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Combine the results folders of a run's shards (--shard i/n) into the whole run's results, CSVs, report and charts.",
        discussion: "Every shard of the run must be given once, made by the same command and build; the merged figures equal the unsharded run's.")
    @Argument(help: "The shards' results folders (or their results.json files), in any order.") var parts: [String]
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if parts.isEmpty { throw ValidationError("name the shards' results folders") }
    }

    func run() throws {
        try output.claim(inputs: parts)
        let loaded = try parts.map { part -> (source: String, results: BenchResults) in
            var isFolder: ObjCBool = false
            let file = FileManager.default.fileExists(atPath: part, isDirectory: &isFolder) && isFolder.boolValue ? part + "/results.json" : part
            return (part, try Gate.load(file))
        }
        let results: BenchResults
        do { results = try ShardMerge.merge(loaded) } catch { throw ValidationError("merge: \(PlainFailure.clause(error))") }
        FileHandle.standardError.write(Data("merge: \(parts.count) shards of `\(results.command)`\n".utf8))
        output.show("simulate", ReportTables.simulations(results.simulations))
        output.show("keys", ReportTables.keys(results.keyComparisons))
        output.show("sweep", ReportTables.sweep(results.sweeps))
        output.show("memory warnings", ReportTables.warnings(results.memoryWarnings))
        output.show("live replay", ReportTables.replays(results.replays))
        try output.finish(results)
    }
}
