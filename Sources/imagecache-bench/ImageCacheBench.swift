import ArgumentParser
import Bench
import Foundation

@main
struct ImageCacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagecache-bench",
        abstract: "Benchmarks and stress-tests image caches on recorded app workloads.",
        version: ToolProvenance.version + (ToolProvenance.current.commit.map { " (\($0.prefix(12)))" } ?? ""),
        subcommands: [
            SuiteCommand.self, SimulateCommand.self, KeysCommand.self, SweepCommand.self, MemwarnCommand.self, AppsCommand.self, RecommendCommand.self, FidelityCommand.self,
            ReplayCommand.self, CalibrateCommand.self, StressCommand.self, GateCommand.self, MergeCommand.self, HostileCommand.self,
            RecordCommand.self, ImportCommand.self, ExportCommand.self, StatsCommand.self, SynthTraceCommand.self,
            ThumbnailsCommand.self, ThumbnailCommand.self, SynthCommand.self, LeakCheckCommand.self,
            DiskTortureCommand.self, ServeCommand.self,
        ],
        defaultSubcommand: SuiteCommand.self
    )

    /// Usage errors (unknown flags, bad sizes) exit with status 2, as command-line tools do,
    /// pointing at the help of the command they concern; failures while running exit with 1.
    static func main() async {
        // Past a file-size limit a write fails with EFBIG and is reported, instead of the signal ending the run mid-file.
        signal(SIGXFSZ, SIG_IGN)
        ExitCleanup.install()
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            if exitCode(for: error) == .validationFailure { usageError(fullMessage(for: error)) }
            exit(withError: error)
        }
        do {
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            let type = type(of: command)
            // A pipeline file is the user's to fix, as an option's value is.
            if exitCode(for: error) == .validationFailure || error is UsageError || error is PipelineFileError {
                let name = ["imagecache-bench", type.configuration.commandName].compactMap { $0 }.joined(separator: " ")
                let message = (error as? UsageError)?.description ?? (error as? PipelineFileError)?.description ?? type.message(for: error)
                usageError("Error: \(message)\n  See '\(name) --help' for more information.")
            }
            exit(withError: error)
        }
    }

    static func usageError(_ message: String) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Foundation.exit(2)
    }
}
