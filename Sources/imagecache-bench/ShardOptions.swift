import ArgumentParser
import Bench

/// `--shard i/n`: one part of a run, to spread it over machines; `merge` combines the parts.
struct ShardOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Run only part i of n of this run's units (1/4 … 4/4), for machines or jobs working at once; `merge` combines the parts' folders.",
        discussion: "simulate's units are its (trace, key strategy, memory size) groups, sweep's its (trace, size) points, suite's its datasets; part i takes a contiguous range, so merged results equal the unsharded run's exactly."),
        transform: Shard.parse)
    var shard: Shard?
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
        var job = MergeJob()
        job.parts = parts
        try job.run(output: output.results)
    }
}
