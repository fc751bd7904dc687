import CacheSimulation
import Foundation
import Workloads

/// `calibrate`: replays traces through the live pipeline on this machine, fits the clock's
/// decode costs to the thumbnails it made (`DeviceCalibration`), and saves them as a profile
/// (`DeviceProfile`) that `--device-costs` gives the simulator.
public struct CalibrateJob: Sendable {
    public var inputs = TraceInputs()
    /// How the replays run: their requests, what is in flight, the origin's store, and the
    /// network its answers are paced to (`defaultNetwork` unless told).
    public var options: LiveReplayOptions = {
        var options = LiveReplayOptions()
        options.network = CalibrateJob.defaultNetwork
        return options
    }()
    /// Where the profile goes.
    public var output = "device-costs.json"
    /// The requests of each trace replayed when `--requests` names none: enough thumbnails of
    /// every kind a trace has, in minutes, where a whole dataset replays for an hour or more.
    public static let defaultRequests = 1_500
    /// The network the origin paces its answers to while the decodes are timed. Unpaced, the
    /// origin and the HTTP client on this machine answer as fast as they can and take the cores
    /// the decodes need, which a phone's server never does (BENCHMARKS.md, "The device's costs").
    public static let defaultNetwork: NetworkProfile? = NetworkProfile.presets.first { $0.name == "lte" }

    public init() {}

    public func validate() throws {
        try inputs.validate()
        guard (1...10_000).contains(options.concurrency) else { throw UsageError("--concurrency must be from 1 to 10000, not \(options.concurrency)") }
    }

    /// Replays every trace, fits, writes the profile; returns it with a table of the fit.
    public func run(progress: ProgressLine = ProgressLine()) async throws -> (profile: DeviceProfile, table: TextTable) {
        try OutputFile.refuseOverwriting(output, inputs: inputs.inputPaths)
        var decodes: [DeviceCalibration.Decode] = [], reads: [DeviceCalibration.Read] = []
        var names: [String] = []
        var inputs = inputs
        inputs.requests = inputs.requests ?? Self.defaultRequests
        for workload in try inputs.load() {
            let measured = try await LiveReplay.measured(workload, options: options, progress: progress)
            decodes += measured.decodes
            reads += measured.reads
            names.append(workload.name)
        }
        let width = ProcessInfo.processInfo.activeProcessorCount
        guard let costs = DeviceCalibration.fitted(decodes, reads: reads, width: width) else {
            throw CalibrationError(decodes: decodes.count)
        }
        let error = DeviceCalibration.medianError(of: costs, on: decodes)
        let profile = DeviceProfile(
            costs: costs,
            source: "calibrate on \(ProcessInfo.processInfo.hostName) (\(width) cores), \(options.concurrency) in flight, "
                + "\(options.network.map { "the origin paced to \($0.name)" } ?? "the origin unpaced"): \(names.joined(separator: ", "))",
            decodes: decodes.count, medianError: error)
        try profile.write(to: output)
        var table = TextTable([
            ("decodes", .right), ("fixed ms", .right), ("libvips ms", .right), ("ns per encoded byte", .right), ("ns per decoded byte", .right),
            ("ns per loaded pixel", .right), ("ns per resized pixel", .right), ("ns per pixel between passes", .right), ("at once", .right), ("median error", .right), ("was (this machine's default)", .left),
            ("disk reads", .right), ("read µs per file", .right), ("read ns per byte", .right),
        ])
        let was = DeviceCosts.thisMachine
        table.append([
            String(decodes.count), String(format: "%.3f", costs.decodeFixedNanoseconds / 1e6), String(format: "%.3f", costs.decodeLibvipsFixedNanoseconds / 1e6),
            String(format: "%.2f", costs.decodeNanosecondsPerEncodedByte), String(format: "%.2f", costs.decodeNanosecondsPerDecodedByte),
            String(format: "%.2f", costs.decodeNanosecondsPerLoadedPixel), String(format: "%.2f", costs.decodeNanosecondsPerResizedPixel),
            String(format: "%.2f", costs.decodeNanosecondsPerBetweenPassesPixel), String(width), String(format: "%.1f%%", error * 100),
            String(format: "%.1f%% off", DeviceCalibration.medianError(of: was, on: decodes) * 100),
            String(reads.count), String(format: "%.1f", costs.diskReadNanosecondsPerFile / 1e3), String(format: "%.3f", costs.diskReadNanosecondsPerByte),
        ])
        return (profile, table)
    }

    /// Too few thumbnails were made to fit anything.
    public struct CalibrationError: Error, CustomStringConvertible {
        public let decodes: Int
        public var description: String {
            "calibrate: the replays made \(decodes) thumbnails; a fit takes at least \(DeviceCalibration.fewestDecodes) (give more requests or another trace)"
        }
    }
}
