import CacheSimulation
import ImagePipeline

/// `keys`: cache-key strategies compared on the same traces.
public struct KeysJob: Sendable {
    public var inputs = TraceInputs()
    /// The strategies, the memory size and the disk size, as typed.
    public var settings: CacheSettings = {
        var settings = CacheSettings()
        settings.keys = "all"
        return settings
    }()
    /// Colliding URL pairs shown per strategy.
    public var examples = 3

    public init() {}

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputs.inputPaths)
        let loaded = try inputs.load()
        var matrix = SimulationMatrix()
        matrix.memorySizes = [try SettingParsing.size(settings.memory)]
        matrix.diskSizes = [try SettingParsing.diskSize(settings.disk)]
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        results.keyComparisons = KeyComparison.run(
            loaded, strategies: try SettingParsing.strategies(settings.keys), configuration: matrix, examples: examples)
        output.show("keys", ReportTables.keys(results.keyComparisons))
        if !output.json { print(ReportTables.collisions(results.keyComparisons)) }
        try output.finish(results)
    }
}
