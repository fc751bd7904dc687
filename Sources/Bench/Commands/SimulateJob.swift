import Foundation
import CacheSimulation
import ImagePipeline
import Workloads

/// `simulate`: traces × policies × memory and disk sizes × key strategies × warning reactions, or
/// one pipeline file on each trace.
public struct SimulateJob: Sendable {
    public var inputs = TraceInputs()
    public var settings = CacheSettings()
    /// The offline bounds (Belady, PFOO-L).
    public var bounds = true
    /// libCacheSim's semantics: the requests `export` writes, no per-entry cap, no disk, no warnings.
    public var libcachesim = false
    /// The file `replay --save-order` wrote, to run in the order the live replay took its decisions.
    public var observedOrder: String?
    public var shard: Shard?
    /// A pipeline file to run instead of the matrix (`PipelineFile`); the settings then give only
    /// the run's warnings, phone and network.
    public var pipeline: String?

    public init() {}

    /// What the run reads.
    public var inputPaths: [String] { inputs.inputPaths + (observedOrder.map { [$0] } ?? []) + (pipeline.map { [$0] } ?? []) }

    /// The checks that need nothing read.
    public func validate() throws {
        try inputs.validate()
        _ = try settings.matrix(objects: inputs.objects, perTraceNetwork: true)
        if settings.fitsRecordedNetwork, observedOrder != nil || shard != nil || libcachesim {
            throw UsageError("--network recorded times each recorded trace on its own network; it takes no --observed-order, --shard or --libcachesim")
        }
    }

    /// Runs the matrix and shows it on `output`.
    public func run(output: ResultsOutput) throws {
        try output.claim(inputs: inputPaths)
        try validate()
        var matrix = try settings.matrix(objects: inputs.objects, perTraceNetwork: true)
        let pipeline = try self.pipeline.map { path throws(PipelineFileError) in try PipelineFile.read(path) }
        if pipeline != nil, libcachesim || shard != nil {
            throw UsageError("--pipeline runs one pipeline on each trace; \(libcachesim ? "--libcachesim's semantics are a matrix's" : "--shard splits a matrix")")
        }
        if observedOrder != nil, libcachesim {
            throw UsageError("--observed-order runs a recorded trace; --libcachesim's plain requests have no decisions to order")
        }
        // A plain trace is simulated while it is read when the run needs nothing of it whole: no
        // offline bounds, no size that is a share of its footprint, no observed order or device.
        let relative = matrix.memorySizes.contains { if case .fraction = $0 { true } else { false } }
            || matrix.diskSizes.contains { if case .fraction? = $0 { true } else { false } }
        let streaming = !bounds && !relative && observedOrder == nil && matrix.device == nil
        let loaded = try libcachesim
            ? libCacheSimInputs(strategies: matrix.strategies, streaming: streaming) : inputs.loadInputs(streaming: streaming)
        if let observedOrder {
            matrix.observedOrder = try Self.order(observedOrder, for: loaded)
        }
        if matrix.device != nil, let plain = loaded.first(where: { if case .plain = $0 { true } else { false } }) {
            throw UsageError("--device counts decoded images, which a recorded trace has and \(plain.name), a plain trace, does not")
        }
        if matrix.network != nil, observedOrder != nil {
            throw UsageError("--network times the simulator's own order; an observed order was a live run's, timed live by replay")
        }
        try shard?.check(traceNames: loaded.map(\.name), units: matrix.unitCount(loaded), unitName: "(trace, key strategy, memory size) groups")
        matrix.shard = shard
        if libcachesim {
            matrix.maxEntryFraction = 1
            matrix.diskSizes = [nil]
            matrix.warnings = .none
        }
        matrix.bounds = bounds
        var results = BenchResults(command: ResultsOutput.commandLine)
        results.datasets = loaded.compactMap {
            if case .recorded(let workload) = $0 { workload.summary } else { nil }
        }
        let fitted = try settings.fitsRecordedNetwork ? RecordedNetworkRow.fit(loaded) : nil
        let start = ContinuousClock.now
        let environment = matrix
        func simulate(_ inputs: [SimulationMatrix.Input], on network: NetworkProfile?) -> [SimulationRow] {
            var matrix = environment
            matrix.network = network
            guard let pipeline else { return matrix.run(inputs) }
            var run = PipelineSimulation(pipeline: pipeline)
            (run.warnings, run.device, run.network, run.observedOrder, run.bounds) = (matrix.warnings, matrix.device, network, matrix.observedOrder, bounds)
            (run.deviceCosts, run.arrivals) = (matrix.deviceCosts, matrix.arrivals)
            return run.run(inputs)
        }
        if let fitted {
            results.simulations = zip(loaded, fitted).flatMap { simulate([$0], on: $1.profile) }
            results.recordedNetworks = fitted
        } else {
            results.simulations = simulate(loaded, on: matrix.network)
        }
        // A stream that could not be read to its end leaves rows that cover part of it: none stand.
        for stream in loaded.compactMap(\.stream) { try stream.finished() }
        let seconds = (ContinuousClock.now - start).milliseconds / 1000
        let requests = results.simulations.reduce(0) { $0 + $1.result.requests }
        let summary = String(
            format: "simulate: %d runs, %.1f M requests in %.2f s (%.1f M requests/s over all cores, ",
            results.simulations.count, Double(requests) / 1e6, seconds, Double(requests) / 1e6 / max(seconds, 1e-9))
        FileHandle.standardError.write(Data((summary + (bounds ? "the offline bounds included)\n" : "no offline bounds)\n")).utf8))
        output.show("simulate", ReportTables.simulations(results.simulations))
        if let device = matrix.device {
            output.show("on \(device)", ReportTables.devices(results.simulations))
        }
        if let fitted {
            output.show("each trace's own network, fitted to its recorded fetch times, and the presets on the same fetches", ReportTables.recordedNetworks(fitted))
        }
        if let network = matrix.network.map({ "\($0)" }) ?? (fitted == nil ? nil : "each trace's recorded network") {
            output.show("time to image on \(network), this machine's decode and disk costs (docs/TIME.md)", ReportTables.timeToImage(results.simulations))
        }
        shard?.record(in: &results)
        try output.finish(results)
    }

    /// The observed order in `path`, checked against the one recorded trace it was observed on.
    private static func order(_ path: String, for loaded: [SimulationMatrix.Input]) throws -> ObservedOrder {
        guard loaded.count == 1, case .recorded(let workload) = loaded[0] else {
            throw UsageError("--observed-order belongs to one replayed recorded trace; give that one trace")
        }
        let (order, requests) = try ObservedOrderFile.read(path)
        guard requests == workload.requests.count else {
            throw UsageError(
                "\(path) was observed on \(requests) requests of its trace, \(workload.name) has \(workload.requests.count) here: give --requests \(requests)")
        }
        return order
    }

    /// Each recorded trace as the oracleGeneral file `export` would write; libCacheSim traces as they are.
    /// A trace exported here is read whole, before its folder goes; a given one streams with `streaming`.
    private func libCacheSimInputs(strategies: [CacheKeyStrategy], streaming: Bool) throws -> [SimulationMatrix.Input] {
        guard strategies.count == 1 else { throw UsageError("--libcachesim names objects by one key strategy; give one with --keys") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("icb-libcachesim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try inputs.readablePaths()
        let exported = try paths.map { path -> String in
            guard try inputs.isRecorded(path) else { return path }
            let name = URL(fileURLWithPath: path).lastPathComponent
            let file = directory.appendingPathComponent(name + ".oracleGeneral").path
            let summary = try LibCacheSimExport(strategy: strategies[0], layout: .oracleGeneral).export(path, to: file)
            if let notCarried = summary.notCarried {
                FileHandle.standardError.write(Data("\(name): left out as libCacheSim would: \(notCarried)\n".utf8))
            }
            return file
        }
        var plain = inputs
        plain.traces = exported
        return try plain.loadInputs(streaming: streaming && exported == paths)
    }
}
