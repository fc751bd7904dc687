import CacheSimulation
import Histogram

/// Latency of one kind of answer, in milliseconds.
public struct LatencySummary: Codable, Sendable {
    public var count: Int
    public var p50: Double
    public var p90: Double
    public var p99: Double
    public var p999: Double
    public var max: Double

    init(_ histogram: Histogram<UInt64>) {
        func milliseconds(_ microseconds: UInt64) -> Double { Double(microseconds) / 1000 }
        count = Int(histogram.totalCount)
        p50 = milliseconds(histogram.valueAtPercentile(50))
        p90 = milliseconds(histogram.valueAtPercentile(90))
        p99 = milliseconds(histogram.valueAtPercentile(99))
        p999 = milliseconds(histogram.valueAtPercentile(99.9))
        max = milliseconds(histogram.max)
    }
}

/// What a live replay measured, and whether it agrees with the simulator.
public struct LiveReplayReport: Codable, Sendable {
    public var trace: String
    public var configuration: String
    public var requests: Int
    public var answered: Int
    public var failed: Int
    /// Requests the replay cancelled as the app did.
    public var cancelled: Int
    public var wallSeconds: Double
    public var requestsPerSecond: Double
    /// Per source: memory, joined, disk, origin.
    public var latency: [String: LatencySummary]
    public var decode: LatencySummary
    public var originRequests: Int
    public var originBytes: Int
    public var joinedWaiters: Int
    /// Transfers stopped because nobody waited for them any more.
    public var stoppedTransfers: Int
    public var peakResidentBytes: Int
    public var memoryHits: Int
    public var diskHits: Int
    public var originLoads: Int
    /// Live: requests answered from memory or by joining a flight in progress.
    public var liveHitRatio: Double
    /// Live: requests answered without a new download (memory, joined or disk).
    public var liveCombinedHitRatio: Double
    /// The in-flight model's ratios (`SimulationConfiguration.inFlight` = the concurrency),
    /// which know only the trace.
    public var simulatedHitRatio: Double
    public var simulatedCombinedHitRatio: Double
    /// The simulator run in the order the live pipeline took its decisions.
    public var exact: ExactCheck
    /// The counts behind the ratios, live against the in-flight model.
    public var comparison: Comparison
    /// Memory and resident size over the run.
    public var memoryOverTime: [MemorySample]
    /// Under a device model: the times live and the simulator (in trace order) ended the app, and the simulator's account.
    public var device: DeviceCheck?
    /// With a network: live's time to image on it against the clocked model's.
    public var timeToImage: TimeAgreement?
    /// The decode costs this run's own thumbnails fit (`DeviceCalibration`); nil for too few.
    public var calibration: Calibration?

    public struct Calibration: Codable, Sendable {
        public var costs: DeviceCosts
        public var decodes: Int
        /// The median of |modelled − measured| / measured over the decodes, a fraction.
        public var medianError: Double
    }

    public struct DeviceCheck: Codable, Sendable {
        public var liveProcessEnds: Int
        public var simulated: DeviceOutcome
    }

    /// Whether the simulator, in the observed order, answered every request as live did.
    public var agrees: Bool { exact.differingRequests == 0 }

    /// The exact check: every request's answer, live against the simulator in observed order.
    public struct ExactCheck: Codable, Sendable {
        /// Decisions and events the live run logged.
        public var observedSteps: Int
        public var differingRequests: Int
        /// Requests answered differently, by "live / simulated" answer.
        public var differences: [String: Int]
    }

    /// Requests the in-flight model answered differently from live.
    public var modelDifferingRequests: Int { comparison.differences.values.reduce(0, +) }

    /// Live and in-flight-model counts side by side, and the requests answered
    /// differently. One at a time (`concurrency` 1) the model takes the same
    /// decisions in the same order and differs nowhere. With requests in
    /// flight together it models the window (`inFlight`): joins, shared downloads
    /// and thumbnails that land late, oldest first. Live requests finish in the
    /// order they do: where that differs, the model's answers do (its error).
    public struct Comparison: Codable, Sendable {
        public var liveMemoryHits: Int
        public var simulatedMemoryHits: Int
        public var liveDiskHits: Int
        public var simulatedDiskHits: Int
        public var liveCancelled: Int
        public var simulatedCancelled: Int
        public var liveOffline: Int
        public var simulatedOffline: Int
        /// Requests that waited on a flight for the same thumbnail.
        public var liveJoins: Int
        public var simulatedJoins: Int
        /// Downloads another display size of the URL was already making.
        public var liveSharedDownloads: Int
        public var simulatedSharedDownloads: Int
        /// Requests answered differently, by "live / simulated" answer.
        public var differences: [String: Int]
    }

    public struct MemorySample: Codable, Sendable {
        public var seconds: Double
        public var residentBytes: Int
        public var memoryCacheBytes: Int
    }
}
