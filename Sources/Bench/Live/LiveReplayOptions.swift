import CacheSimulation
import Foundation
import Histogram
import ImagePipeline
import OriginServer

/// How a live replay runs.
public struct LiveReplayOptions: Sendable {
    /// Recorded time is divided by this; 0 replays as fast as `concurrency` allows.
    public var speed = 0.0
    /// Requests in flight at most: about a screen of cells and their prefetches.
    public var concurrency = 16
    /// Replay only the first so many requests.
    public var requestLimit: Int?
    /// Replay only the first so many sessions (whole ones).
    public var sessionLimit: Int?
    /// How the app's cancellations are replayed.
    public var cancellations = CancellationTiming.recorded
    public var memory = ByteSize.bytes(ReplayDefaults.memoryBytes)
    /// The memory tier's count limit and its largest entry, as a share of its size.
    public var memoryCountLimit = Int.max
    public var maxEntryFraction = CacheLimits(costLimit: 0).maxEntryFraction
    /// nil: no disk tier.
    public var disk: ByteSize? = .bytes(ReplayDefaults.diskBytes)
    public var diskPolicy = ReplayDefaults.diskPolicy
    public var policy = ReplayDefaults.policy
    /// The memory cache's stripes, each with its own lock.
    public var stripes = CacheStripes.single
    public var keyStrategy = ReplayDefaults.keyStrategy
    public var reaction = WarningReaction(.purgeAll)
    /// Median origin latency per response (log-normal, σ 0.5); 0 for none.
    public var latencyMilliseconds = 0.0
    /// Disk writes left to the kernel, as iOS image caches do (URLCache, Nuke's DataCache);
    /// `.file` (the library's crash-safe default) fsyncs each one and halves live throughput here.
    public var diskSync = DiskCache.SyncPolicy.none
    /// Share of origin responses that are faults (5xx, truncated bodies, resets, HTML, wrong types).
    public var faultRate = 0.0
    public var originStore = Recording.defaultStore
    /// Recorded gaps longer than this (reading pauses, relaunches hours apart) are cut to it before `speed` applies.
    public var longestGap = Duration.seconds(2)
    /// Where to write the order the pipeline took its decisions in (`ObservedOrderFile`), if anywhere.
    public var observedOrderPath: String?
    /// Where to write, per request, where live, the simulator in observed order and the in-flight
    /// model answered it (`ReplayAnswersFile`), if anywhere.
    public var answersPath: String?
    /// The phone the app runs on: the replay keeps the simulator's footprint account
    /// (`DeviceFootprint`), warns the pipeline and ends it where the model says. One request
    /// at a time: with more in flight, the images being decoded would be live's to count.
    public var device: DeviceModel?
    /// A memory tier of your own in place of the built-in `MemoryCache` (`policy` and `stripes`
    /// then shape only the simulator the report sets beside it): made for each process the
    /// replay starts (launch, relaunch, new device), given the memory budget in bytes.
    public var imageCache: (@Sendable (_ memoryBytes: Int) -> any ImageCaching)?
    /// A phone's network: live's origin answers through it (`LinkShaping`), and the in-flight
    /// model the report sets beside live keeps a clock on it, its requests back to back as
    /// `speed` 0 sends them; the report sets their times side by side (`TimeAgreement`).
    public var network: NetworkProfile?
    /// Who carries the network's downlink live: the origin's pacing, or the kernel's `tbf` in a
    /// network namespace (`LinkShaping.Method`; the replay must run inside one, `KernelShaping`).
    public var shaping = LinkShaping.Method.origin
    /// What decodes and disk reads take in the model on a network (`calibrate`'s profile, `--device-costs`).
    public var deviceCosts = DeviceCosts.thisMachine
    /// How long a download waits for its response live, and in the model beside it (`RequestTimeout`).
    public var requestTimeout: Duration? = RequestTimeout.standard

    public init() {}

    /// When a request the app cancelled is cancelled.
    public enum CancellationTiming: String, Sendable, CaseIterable {
        /// As the simulator models it: when its download starts (a cancel
        /// beats the origin, never memory or disk). Live and simulated runs
        /// then take the same decisions.
        case recorded
        /// After the recorded delay (divided by `speed`), racing the answer
        /// as in the app; such races make live differ from the simulator.
        case timed
    }

    /// The memory tier's limits at `bytes`, live and in the simulator beside it.
    func memoryLimits(bytes: Int) -> CacheLimits {
        CacheLimits(costLimit: bytes, countLimit: memoryCountLimit, maxEntryFraction: maxEntryFraction)
    }

    var describe: String {
        (imageCache == nil ? "" : "your memory tier beside ") + "\(policy)\(stripes.count > 1 ? " \(stripes) stripes" : "") memory \(memory) disk \(disk.map { "\($0) \(diskPolicy.rawValue)" } ?? "none") keys \(keyStrategy) warnings \(reaction)"
            + " speed \(speed == 0 ? "max" : "\(speed)x") concurrency \(concurrency)"
            + " cancels \(cancellations.rawValue) disk sync \(diskSync.rawValue)" + (network.map { " network \($0.name)" } ?? "") + (device.map { " device \($0.name)" } ?? "") + (latencyMilliseconds > 0 ? " latency \(latencyMilliseconds)ms" : "") + (faultRate > 0 ? " faults \(faultRate)" : "")
    }
}

