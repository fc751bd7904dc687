import CacheSimulation
import ImagePipeline

/// The cache settings a simulation matrix spans, as typed (lists comma-separated), with the
/// defaults every command shares.
public struct CacheSettings: Sendable {
    public var policy = ReplayDefaults.policy.description
    public var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description
    public var disk = CacheSettings.defaultDisk
    public var maxEntry = "10%"
    public var diskPolicy = ReplayDefaults.diskPolicy.rawValue
    public var keys = ReplayDefaults.keyStrategy.description
    public var reaction = "purge-all"
    public var warnings = "trace"
    public var ignoresInvalidations = false
    public var inFlight = 0
    public var stripes = 1
    public var device = "none"
    public var network = "none"
    /// On a clock, when requests arrive (`SimulationConfiguration.Arrivals`).
    public var arrivals = SimulationConfiguration.Arrivals.recorded.rawValue
    /// A device profile (`DeviceProfile`, `calibrate`'s) the clock takes its decode and disk costs from; nil: this machine's.
    public var deviceCosts: String?

    /// The disk size every command defaults to.
    public static let defaultDisk = ByteSize.bytes(ReplayDefaults.diskBytes).description

    public init() {}

    /// `--network recorded`: each trace timed on the network fitted to its own fetch times.
    public var fitsRecordedNetwork: Bool { network.lowercased() == SettingParsing.recordedNetwork }

    /// When requests arrive and what the device's decodes and reads cost, as typed (`--arrivals`,
    /// `--device-costs`), for runs that keep a clock (`onAClock`); arrivals other than recorded are
    /// refused without one.
    public static func clockTerms(
        arrivals: String, deviceCosts: String?, onAClock: Bool
    ) throws -> (arrivals: SimulationConfiguration.Arrivals, costs: DeviceCosts) {
        let arrivals = try SettingParsing.arrivals(arrivals)
        if arrivals != .recorded, !onAClock {
            throw UsageError("--arrivals says when requests arrive on a clock, which only --network gives a run")
        }
        return (arrivals, try deviceCosts.map { try DeviceProfile.read($0).costs } ?? .thisMachine)
    }

    /// The matrix these settings span; a command that times each trace on its own recorded network
    /// passes `perTraceNetwork` and gets a matrix without one (it sets each trace's), any other
    /// refuses `--network recorded`; with `objects` (a libCacheSim trace in its object
    /// mode) memory sizes count objects, written as plain numbers or `100objects`.
    public func matrix(objects: Bool = false, perTraceNetwork: Bool = false) throws -> SimulationMatrix {
        var matrix = SimulationMatrix()
        matrix.policies = try SettingParsing.policies(policy)
        matrix.memorySizes = try SettingParsing.list(memory, option: "--memory").map {
            objects ? try SettingParsing.objectCount($0) : try SettingParsing.size($0)
        }
        matrix.diskSizes = try SettingParsing.list(disk, option: "--disk").map(SettingParsing.diskSize)
        matrix.diskPolicy = try SettingParsing.diskPolicy(diskPolicy)
        matrix.strategies = try SettingParsing.strategies(keys)
        matrix.reactions = try SettingParsing.list(reaction, option: "--reaction").map(SettingParsing.reaction)
        matrix.warnings = try SettingParsing.warningSource(warnings)
        matrix.honoursInvalidations = !ignoresInvalidations
        matrix.inFlight = inFlight
        matrix.stripes = CacheStripes(min(max(stripes, 1), 256))
        matrix.device = try SettingParsing.device(device)
        matrix.network = fitsRecordedNetwork && perTraceNetwork ? nil : try SettingParsing.network(network)
        if objects, matrix.network != nil || fitsRecordedNetwork {
            throw UsageError("--network carries each request's bytes over a link; --objects counts every object as size 1, with no bytes to carry")
        }
        (matrix.arrivals, matrix.deviceCosts) = try Self.clockTerms(
            arrivals: arrivals, deviceCosts: deviceCosts, onAClock: matrix.network != nil || fitsRecordedNetwork)
        guard case .fraction(let share) = try SettingParsing.size(maxEntry, option: "--max-entry"), share <= 1 else {
            throw UsageError("--max-entry is a share of the memory size, from 0% to 100%, not '\(maxEntry)'")
        }
        matrix.maxEntryFraction = share
        return matrix
    }
}
