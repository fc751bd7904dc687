import ImagePipeline
import CacheSimulation

/// One image pipeline as a named simulator configuration, read from a pipeline file
/// (`PipelineFile`): the five apps as they shipped (read from their documents: APPS.md), the
/// fixed pipeline beside them, and any pipeline of a user's own. Each as-shipped preset lists
/// its defects, each with the change that fixes it, so a run can fix one at a time and say what
/// each cost. The committed presets are files under `presets/` (`PresetLibrary`).
public struct AppPreset: Sendable, Hashable {
    /// "vanilladin-as-shipped", "articleproject-their-fix", "fixed".
    public var name: String
    /// The app whose traces it runs on (a trace header's `app`); nil for a pipeline of no one app.
    public var app: String?
    /// What the pipeline is, in a sentence or two, and where its settings come from.
    public var summary: String
    public var evidence: [String]
    public var memoryKey: CacheKeyStrategy
    /// The disk key's strategy, when it differs from the memory key's.
    public var diskKey: CacheKeyStrategy?
    public var memoryCost: RecordedWorkload.MemoryCost
    public var memoryLimits: CacheLimits
    /// A cost limit that is a share of the phone's memory (Nuke's, Kingfisher's), in place of
    /// `memoryLimits.costLimit`; resolved on the run's phone (`configuration(on:)`).
    public var memoryDeviceShare: DeviceShare?
    public var policy: EvictionPolicyKind
    public var timeToLive: Duration?
    public var pressure: MemoryPressurePolicy
    public var disk: SimulationConfiguration.DiskTier?
    /// The format an app re-encodes downloaded originals to before writing them to disk.
    public var originalDiskFormat: EncodedFormat?
    public var coalescing: SimulationConfiguration.FetchCoalescing
    /// Requests in flight together: a page of cells (Vanilladin loads its page's 10 covers at
    /// once); on a clock, the app's limit on requests waiting for images. An app with no
    /// coalescer downloads a URL in flight again.
    public var loadsInFlight: Int
    public var honoursInvalidations: Bool
    /// What is wrong with it, each with its fix; empty for the fixed pipeline.
    public var defects: [AppDefect]
    /// How long a download waits for its response to begin before it fails (`RequestTimeout`;
    /// URLSession's 60 s unless the library sets its own); nil: never.
    public var requestTimeout: Duration? = RequestTimeout.standard

    /// A share of the phone's memory, at most a size.
    public struct DeviceShare: Sendable, Hashable {
        public var share: Double
        public var atMost: Int?

        public init(share: Double, atMost: Int? = nil) {
            self.share = share
            self.atMost = atMost
        }

        /// The bytes on `device`; a phone of unknown memory (one given by its limit, or none) is
        /// taken as the apps' phone (`DeviceModel.appsDefault`, 3 GiB).
        public func bytes(on device: DeviceModel?) -> Int {
            let memory = device?.physicalMemoryBytes ?? DeviceModel.appsDefault.physicalMemoryBytes ?? 3 << 30
            return min(Int(Double(memory) * share), atMost ?? .max)
        }
    }

    /// The simulator's configuration for this preset, on no phone in particular.
    public var configuration: SimulationConfiguration { configuration(on: nil) }

    /// The simulator's configuration for this preset, its memory resolved on `device` (which the
    /// caller still sets, if it runs on one).
    public func configuration(on device: DeviceModel?) -> SimulationConfiguration {
        var limits = memoryLimits
        if let memoryDeviceShare { limits.costLimit = memoryDeviceShare.bytes(on: device) }
        var configuration = SimulationConfiguration(
            limits: limits, policy: policy, timeToLive: timeToLive, pressure: pressure, warnings: .trace, disk: disk,
            honoursInvalidations: honoursInvalidations, inFlight: loadsInFlight, coalescing: coalescing)
        configuration.requestTimeout = requestTimeout
        return configuration
    }

    /// What the simulation trace depends on: presets alike in these share one.
    struct TraceShape: Hashable, Sendable {
        let memoryKey: CacheKeyStrategy
        let diskKey: CacheKeyStrategy?
        let memoryCost: RecordedWorkload.MemoryCost
        let originalDiskFormat: EncodedFormat?

        func trace(of workload: RecordedWorkload) -> SimulationTrace {
            workload.simulationTrace(strategy: memoryKey, diskStrategy: diskKey, memoryCost: memoryCost, originalDiskFormat: originalDiskFormat)
        }
    }

    var traceShape: TraceShape {
        TraceShape(memoryKey: memoryKey, diskKey: diskKey, memoryCost: memoryCost, originalDiskFormat: originalDiskFormat)
    }

    /// The workload keyed and costed as this preset keys and costs it.
    public func trace(of workload: RecordedWorkload) -> SimulationTrace { traceShape.trace(of: workload) }

    /// This preset with one defect fixed as `fixed` (the fixed pipeline) does it.
    public func fixing(_ defect: AppDefect, as fixed: AppPreset) -> AppPreset {
        var changed = self
        defect.fix.apply(to: &changed, as: fixed)
        changed.name = name + " −" + defect.id
        changed.defects.removeAll { $0 == defect }
        return changed
    }
}
