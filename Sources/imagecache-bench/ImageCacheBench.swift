import ArgumentParser
import Foundation
import Bench

@main
struct ImageCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagecache-bench",
        abstract: "Benchmarks and stress-tests image caches on recorded app workloads.",
        version: ToolProvenance.version + (ToolProvenance.current.commit.map { " (\($0.prefix(12)))" } ?? ""),
        subcommands: [
            SuiteCommand.self, SimulateCommand.self, KeysCommand.self, SweepCommand.self, MemwarnCommand.self,
            ReplayCommand.self, StressCommand.self, GateCommand.self, HostileCommand.self,
            RecordCommand.self, ImportCommand.self, ExportCommand.self, StatsCommand.self, SynthTraceCommand.self,
            ThumbnailsCommand.self, ThumbnailCommand.self, SynthCommand.self, LeakCheckCommand.self,
            DiskTortureCommand.self, ServeCommand.self,
        ],
        defaultSubcommand: SuiteCommand.self
    )

    /// Usage errors (unknown flags, bad sizes) exit with status 2, as command-line tools do;
    /// failures while running exit with 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
