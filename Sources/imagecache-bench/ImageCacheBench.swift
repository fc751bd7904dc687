import ArgumentParser

@main
struct ImageCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagecache-bench",
        abstract: "Benchmarks and stress-tests image caches on recorded app workloads.",
        subcommands: [
            ThumbnailsCommand.self, ThumbnailCommand.self, SynthCommand.self, LeakCheckCommand.self,
            DiskTortureCommand.self, ServeCommand.self, RecordCommand.self,
            ImportCommand.self, ExportCommand.self, StatsCommand.self,
            SimulateCommand.self, KeysCommand.self, SweepCommand.self, MemwarnCommand.self, ReplayCommand.self, GateCommand.self,
        ],
        defaultSubcommand: ThumbnailsCommand.self
    )
}
