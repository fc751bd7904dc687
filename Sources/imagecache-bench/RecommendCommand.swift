import ArgumentParser
import Bench
import CacheSimulation
import Foundation
import Workloads

struct RecommendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recommend",
        abstract: "Recommend cache settings for an app from its traces: memory size, key strategy, policy, per-entry cap, warning reaction and disk size, each with the figure behind it.",
        discussion: """
            Memory is the knee of the memory curve (sizes doubling from 256KiB until everything fits; the knee is the \
            smallest whose doubling adds under half a point of hits), capped by the budget; the key is the best that never shows another URL's picture; policy, per-entry cap and warning \
            reaction are the best at that size with the recorded warnings; disk is the knee of either tier's curve up to \
            --disk-budget. Prints the settings for this library, Nuke, Kingfisher and SDWebImage, and what each cannot express.
            """)
    @OptionGroup var workloads: WorkloadOptions
    @Option(help: "Most memory the app may give decoded images (64MB, 256MiB).") var memoryBudget: String
    @Option(help: "Most disk the app may give downloaded images; without it, no disk size is recommended.") var diskBudget: String?
    @Option(help: ArgumentHelp(
        "The phone the app runs on (DEVICES.md): no memory size at which it ends the app is recommended.",
        valueName: "none|class|limit=…"))
    var device = "none"
    @OptionGroup var output: OutputOptions

    func validate() throws {
        try OptionCheck.library {
            _ = try Self.absolute(memoryBudget, "--memory-budget")
            if let diskBudget { _ = try Self.absolute(diskBudget, "--disk-budget") }
        }
    }

    static func absolute(_ text: String, _ option: String) throws -> Int {
        guard case .bytes(let bytes) = try SettingParsing.size(text, option: option), bytes >= 1 << 20 else {
            throw UsageError("\(option) is a size of at least 1MiB, such as 64MB or 1GiB, not \(text)")
        }
        return bytes
    }

    func run() throws {
        try output.claim(inputs: workloads.inputs.inputPaths)
        let loaded = try workloads.inputs.load()
        var results = BenchResults(command: commandLine)
        results.datasets = loaded.map(\.summary)
        let recommendation: Recommendation
        do {
            recommendation = try SettingsRecommender.recommend(
                loaded, memoryBudget: try Self.absolute(memoryBudget, "--memory-budget"),
                diskBudget: try diskBudget.map { try Self.absolute($0, "--disk-budget") }, device: try SettingParsing.device(device))
        } catch let error as RecommendationError {
            FileHandle.standardError.write(Data("recommend: no recommendation: \(PlainFailure.clause(error))\n".utf8))
            throw ExitCode.failure
        }
        results.recommendation = recommendation
        output.show("recommended settings for \(recommendation.traces.joined(separator: ", "))", ReportTables.recommendation(recommendation))
        output.show("the curves (◀ the knee)", ReportTables.recommendationCurves(recommendation))
        if !output.json {
            for snippet in recommendation.snippets {
                print("== \(snippet.library)\n\(snippet.code)")
                for gap in snippet.cannotExpress { print("// cannot express: \(gap)") }
                print()
            }
        }
        try output.finish(results)
    }
}
