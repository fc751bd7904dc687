import Foundation
import CacheSimulation

/// `apps`: each app's workload under its pipeline as shipped, one defect fixed at a time, and fixed.
public struct AppsJob: Sendable {
    public var inputs = TraceInputs()
    /// Sessions of each app's trace its live port runs (0: none).
    public var liveSessions = 2
    /// Where the origin keeps synthesised images.
    public var store = Recording.defaultStore
    /// The phone the simulated apps run on, as typed.
    public var device = DeviceModel.appsDefault.name
    /// The network the simulated apps load over, as typed ("none": no clock).
    public var network = NetworkProfile.suiteDefault.name
    /// A pipeline file run on each app's trace beside the app's own and the fixed pipeline.
    public var pipeline: String?
    /// A device profile (`calibrate`'s) whose costs time the runs on the network; nil: this machine's.
    public var deviceCosts: String?
    /// On the network, when requests arrive (`SimulationConfiguration.Arrivals`), as typed.
    public var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue

    public init() {}

    public func run(output: ResultsOutput) async throws {
        try output.claim(inputs: inputs.inputPaths + [pipeline, deviceCosts].compactMap { $0 })
        let given = try pipeline.map { path throws(PipelineFileError) in try PipelineFile.read(path) }
        if let given, try PresetLibrary.all().contains(where: { $0.name == given.name }) {
            throw UsageError("\(pipeline ?? "") names itself \(given.name), as a committed preset does; give it a name of its own")
        }
        let loaded = try inputs.load()
        // A trace of no documented app (an import, a mix) has no pipeline as shipped to compare: the libraries' defaults run on it alone.
        for workload in try loaded.filter({ try PresetLibrary.asShipped(app: $0.header.app).isEmpty }) {
            FileHandle.standardError.write(Data("apps: \(workload.name): \(workload.header.app) is not one of the five apps; only the libraries' defaults run on it\n".utf8))
        }
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.map(\.summary)
        let (device, network) = (try SettingParsing.device(device), try SettingParsing.network(network))
        let clock = try CacheSettings.clockTerms(arrivals: arrivals, deviceCosts: deviceCosts, onAClock: network != nil)
        results.apps = try AppComparison.run(
            loaded, device: device, network: network, costs: clock.costs, arrivals: clock.arrivals, pipelines: given.map { [$0] } ?? [])
        output.show("the apps as shipped, one defect fixed at a time, and the fixed pipeline", ReportTables.apps(results.apps ?? []))
        output.show("what each defect cost (against the app as shipped)", ReportTables.appDefects(results.apps ?? []))
        results.libraries = try LibraryComparison.run(loaded, device: device, network: network, costs: clock.costs, arrivals: clock.arrivals)
        output.show("the libraries' defaults against the best settings at the memory they held", ReportTables.libraries(results.libraries ?? []))
        if liveSessions > 0 {
            var checks: [AppLiveCheck] = []
            for workload in loaded {
                let slice = workload.prefix(sessions: liveSessions)
                for preset in try PresetLibrary.asShipped(app: workload.header.app) {
                    checks.append(preset.coalescing == .myMarketAsShipped ? try await MyMarketReplay.live(preset, slice, store: store)
                                  : try await AsShippedReplay.live(preset, slice, store: store))
                }
            }
            results.appsLive = checks
            output.show("the apps as shipped, ported live on the loopback origin, beside the simulator", ReportTables.appsLive(checks))
        }
        try output.finish(results)
    }
}
