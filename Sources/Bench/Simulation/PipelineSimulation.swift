import Foundation
import ImagePipeline
import CacheSimulation

/// One pipeline (a pipeline file) on each trace, in the environment the command line names:
/// `simulate --pipeline`. A recorded trace is keyed and costed as the pipeline keys and
/// decodes; a plain trace has its keys and sizes already, so only the pipeline's limits,
/// policy, expiry and disk apply to it.
public struct PipelineSimulation: Sendable {
    public var pipeline: AppPreset
    public var warnings: SimulationConfiguration.WarningSource = .trace
    public var device: DeviceModel?
    public var network: NetworkProfile?
    /// On the clock: what decodes and disk reads take, and when requests arrive.
    public var deviceCosts = DeviceCosts.thisMachine
    public var arrivals = SimulationConfiguration.Arrivals.recorded
    /// Run in the order a live replay took its decisions (one recorded trace).
    public var observedOrder: ObservedOrder?
    public var bounds = true

    public init(pipeline: AppPreset) { self.pipeline = pipeline }

    /// The pipeline's configuration in this run's environment.
    var environment: SimulationConfiguration {
        var configuration = pipeline.configuration(on: device)
        configuration.warnings = warnings
        configuration.device = device
        configuration.network = network
        configuration.deviceCosts = deviceCosts
        configuration.arrivals = arrivals
        return configuration
    }

    public func run(_ inputs: [SimulationMatrix.Input], progress: ProgressLine = ProgressLine()) -> [SimulationRow] {
        let configuration = environment
        let limits = configuration.limits
        // The bounds need a memory that holds something and ends somewhere.
        let bounded = bounds && !pipeline.hasNoMemory && limits.costLimit < ByteSize.largest
        return ParallelMap.run(Array(inputs.indices), progress: progress, label: "simulate \(pipeline.name)") { index in
            let input = inputs[index]
            let start = ContinuousClock.now
            var trace = SimulationTrace()
            let result: SimulationResult
            switch input {
            case .recorded(let workload):
                trace = pipeline.trace(of: workload)
                result = observedOrder.map { CacheSimulator.answers(trace, configuration, observed: $0).result }
                    ?? CacheSimulator.run(trace, configuration)
            case .plain(_, let plain):
                trace = plain
                result = CacheSimulator.run(trace, configuration)
            case .streamed(let stream):
                result = CacheSimulator.run(stream.cursors(1)[0], configuration)
            }
            let seconds = (ContinuousClock.now - start).seconds
            return SimulationRow(
                trace: input.name, keyStrategy: input.isPlain ? "interned" : pipeline.memoryKey.description,
                memoryBytes: limits.costLimit, diskBytes: pipeline.disk?.byteLimit, reaction: pipeline.pressure.warning.description,
                warnings: warnings.description, inFlight: pipeline.loadsInFlight > 1 ? pipeline.loadsInFlight : nil,
                inObservedOrder: observedOrder == nil ? nil : true, stripes: nil, network: result.timeToImage?.network,
                pipeline: pipeline.name, result: result, seconds: seconds,
                bounds: bounded && input.stream == nil ? OfflineBoundsRow(trace: trace.scopedToLaunches(), limits: limits) : nil)
        }
    }
}
