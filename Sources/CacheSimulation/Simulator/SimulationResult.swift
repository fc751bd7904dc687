import ImagePipeline
/// What a simulated (or bounded) run did.
public struct SimulationResult: Sendable, Codable, Equatable {
    public var policy: String
    public var requests = 0
    /// Memory-tier hits (fractional only for the space-time bound).
    public var hits = 0.0
    /// Downloaded bytes the memory hits saved.
    public var byteHits = 0.0
    /// Disk-tier hits (memory misses found on disk).
    public var diskHits = 0
    /// Downloaded bytes the disk hits saved.
    public var diskByteHits = 0
    /// Entries the disk tier evicted.
    public var diskEvictions = 0
    public var bytesRequested = 0
    /// Misses neither tier answered while offline: nothing could be shown.
    public var offlineMisses = 0
    /// Origin transfers stopped because every requester cancelled; nothing stored.
    public var cancelledTransfers = 0
    /// Bytes of the offline misses, cancelled transfers and unanswered requests, neither downloaded nor served.
    public var unservedBytes = 0
    /// Hits whose stored picture came from another URL: the wrong image on screen.
    public var wrongImages = 0
    /// Hits whose stored picture came from the same URL before its content changed.
    public var staleImages = 0
    /// Requests the app's coalescer never answered (`FetchCoalescing.myMarketAsShipped`).
    public var unansweredRequests = 0
    /// Origin downloads of a picture this device had downloaded before (detailed traces):
    /// bytes fetched again because no tier kept them, or kept them under another key.
    public var duplicateDownloads = 0
    /// The most the memory tier held at once, in cost units (decoded bytes for images).
    public var peakMemoryCost = 0
    /// The most the disk tier held at once, in bytes (entry files included).
    public var peakDiskBytes = 0
    /// Memory warnings applied.
    public var warnings = WarningOutcome()
    /// What the device model did (process ends, lost requests, the footprint); nil without one.
    public var device: DeviceOutcome?
    /// With a network (`SimulationConfiguration.network`): how long requests waited for their image.
    public var timeToImage: TimeToImage?
    public var statistics = CacheStatistics()

    /// What memory warnings cost.
    public struct WarningOutcome: Sendable, Codable, Equatable {
        public var count = 0
        /// Warnings after which the memory tier got back to 90% of the cost it held before.
        public var recovered = 0
        /// Trace seconds the recovered warnings took to get there, summed, and the longest.
        public var recoverySeconds = 0.0
        public var longestRecoverySeconds = 0.0
        /// Misses (and their bytes) for entries a warning had dropped, downloaded again.
        public var refetches = 0
        public var refetchedBytes = 0
        /// Misses for entries a warning had dropped that the disk tier answered (read and decoded again).
        public var diskRereads = 0

        public init() {}

        public var meanRecoverySeconds: Double { recovered == 0 ? 0 : recoverySeconds / Double(recovered) }
    }

    public init(policy: String) { self.policy = policy }

    /// Requests neither tier answered that went to the origin.
    public var originFetches: Double {
        Double(requests) - hits - Double(diskHits) - Double(offlineMisses) - Double(unansweredRequests)
    }
    /// Bytes the origin fetches downloaded (stopped transfers not counted).
    public var bytesDownloaded: Int { bytesRequested - Int(byteHits.rounded()) - diskByteHits - unservedBytes }
    /// Memory hit ratio.
    public var hitRatio: Double { requests == 0 ? 0 : hits / Double(requests) }
    public var missRatio: Double { 1 - hitRatio }
    public var byteHitRatio: Double { bytesRequested == 0 ? 0 : byteHits / Double(bytesRequested) }
    /// Share of requests either tier answered.
    public var combinedHitRatio: Double { requests == 0 ? 0 : (hits + Double(diskHits)) / Double(requests) }
}
