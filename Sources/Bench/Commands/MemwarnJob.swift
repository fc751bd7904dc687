import CacheSimulation

/// `memwarn`: memory warnings from the trace or a schedule, compared across reactions.
public struct MemwarnJob: Sendable {
    public var inputs = TraceInputs()
    /// The policy, memory and disk sizes and the phone, as typed.
    public var settings = CacheSettings()
    /// Warning sources and reactions, comma-separated.
    public var warnings = "trace,every:60s"
    public var reactions = "purge-all,trim-to-50%,trim-idle-30s"

    public init() {}

    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputs.inputPaths + [settings.deviceCosts].compactMap { $0 })
        let loaded = try inputs.load()
        var matrix = SimulationMatrix()
        matrix.device = try SettingParsing.device(settings.device)
        matrix.policies = try SettingParsing.policies(settings.policy)
        matrix.memorySizes = [try SettingParsing.size(settings.memory)]
        matrix.diskSizes = [try SettingParsing.diskSize(settings.disk)]
        matrix.network = try SettingParsing.network(settings.network)
        (matrix.arrivals, matrix.deviceCosts) = try CacheSettings.clockTerms(
            arrivals: settings.arrivals, deviceCosts: settings.deviceCosts, onAClock: matrix.network != nil)
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        results.memoryWarnings = WarningComparison.run(
            loaded, sources: try SettingParsing.list(warnings, option: "--warnings").map(SettingParsing.warningSource),
            reactions: try SettingParsing.list(reactions, option: "--reaction").map(SettingParsing.reaction), configuration: matrix)
        output.show("memory warnings" + (matrix.device.map { " (and its own, on \($0))" } ?? ""), ReportTables.warnings(results.memoryWarnings))
        try output.finish(results)
    }
}
