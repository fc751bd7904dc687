import ArgumentParser
import Bench
import Foundation

struct LeakCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leak-check",
        abstract: "Thumbnail in a loop and check resident memory and live libvips objects stay flat."
    )

    @Option(parsing: .unconditional, help: "Thumbnails to make.") var iterations = 10_000

    @Option(parsing: .unconditional, help: "Fail when resident memory grows by more than this many MiB after warm-up.")
    var maxGrowthMib = 8

    @Flag(help: "Print the report as JSON instead of the summary line.")
    var json = false

    func validate() throws {
        // Below a few hundred the warm-up leaves nothing to measure.
        try OptionCheck.count(iterations, "--iterations", atLeast: 200, atMost: 100_000_000)
        try OptionCheck.count(maxGrowthMib, "--max-growth-mib", atLeast: 0, atMost: 1 << 20)
    }

    func run() throws {
        let report = try LeakCheck(iterations: iterations).run()
        print(json ? try ResultsJSON.text(report) : report.summary)
        guard report.returned(allowedGrowthBytes: maxGrowthMib << 20) else {
            FileHandle.standardError.write(Data("LEAK: memory or libvips objects did not return to their warmed-up level\n".utf8))
            throw ExitCode.failure
        }
    }
}
