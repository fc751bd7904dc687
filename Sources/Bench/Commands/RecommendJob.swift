import Foundation
import CacheSimulation
import Workloads

/// `recommend`: cache settings for an app from its traces, each with the figure behind it, and
/// the same settings written for this library, Nuke, Kingfisher and SDWebImage.
public struct RecommendJob: Sendable {
    public var inputs = TraceInputs()
    /// Most memory and disk the app may give images, and its phone, as typed.
    public var memoryBudget = ""
    public var diskBudget: String?
    public var device = "none"
    /// What to optimise (hits, p95, bytes) and the network to time on, as typed.
    public var goal = RecommendationGoal.hits.rawValue
    public var network = "none"
    /// On a clock, when requests arrive, and a device profile (`calibrate`'s) for the decodes and reads; nil: this machine's.
    public var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue
    public var deviceCosts: String?
    /// Where to write the recommendation as a pipeline file (`simulate --pipeline` runs it); a new path.
    public var writePipeline: String?
    /// The app's pipeline now, a pipeline file measured beside the recommendation.
    public var pipeline: String?

    public init() {}

    func parsedGoal() throws -> RecommendationGoal {
        guard let goal = RecommendationGoal(rawValue: goal.lowercased()) else {
            throw UsageError("--optimize is one of \(RecommendationGoal.allCases.map(\.rawValue).joined(separator: ", ")), not \(goal)")
        }
        if goal == .p95, try SettingParsing.network(network) == nil {
            throw UsageError("--optimize p95 needs --network: a time to image is measured on a network (slow-4g, lte, …)")
        }
        return goal
    }

    /// A budget: a size of at least 1MiB.
    public static func budget(_ text: String, _ option: String) throws -> Int {
        guard case .bytes(let bytes) = try SettingParsing.size(text, option: option), bytes >= 1 << 20 else {
            throw UsageError("\(option) is a size of at least 1MiB, such as 64MB or 1GiB, not \(text)")
        }
        return bytes
    }

    /// The checks that need nothing read.
    public func validate() throws {
        _ = try Self.budget(memoryBudget, "--memory-budget")
        if let diskBudget { _ = try Self.budget(diskBudget, "--disk-budget") }
        if let writePipeline, FileManager.default.fileExists(atPath: writePipeline) {
            throw UsageError("--write-pipeline \(writePipeline) exists; recommend writes a new file and never over one it did not make")
        }
        _ = try SettingParsing.device(device)
        _ = try SettingParsing.arrivals(arrivals)
        _ = try parsedGoal()
    }

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputs.inputPaths + [pipeline, deviceCosts].compactMap { $0 })
        let current = try pipeline.map { path throws(PipelineFileError) in try PipelineFile.read(path) }
        let network = try SettingParsing.network(self.network)
        let clock = try CacheSettings.clockTerms(arrivals: arrivals, deviceCosts: deviceCosts, onAClock: network != nil)
        let loaded = try inputs.load()
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        let recommendation = try SettingsRecommender.recommend(
            loaded, memoryBudget: try Self.budget(memoryBudget, "--memory-budget"),
            diskBudget: try diskBudget.map { try Self.budget($0, "--disk-budget") }, device: try SettingParsing.device(device),
            goal: try parsedGoal(), network: network, costs: clock.costs, arrivals: clock.arrivals, current: current)
        results.recommendation = recommendation
        if let writePipeline {
            let name = URL(fileURLWithPath: writePipeline).deletingPathExtension().lastPathComponent
            let safe = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "-" })
            try OutputFile.write(Data(try PipelineFile.text(of: recommendation.pipeline(named: safe.isEmpty ? "recommended" : safe)).utf8), to: writePipeline)
            FileHandle.standardError.write(Data("recommend: wrote \(writePipeline); imagecache-bench simulate --pipeline \(writePipeline) runs it\n".utf8))
        }
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
