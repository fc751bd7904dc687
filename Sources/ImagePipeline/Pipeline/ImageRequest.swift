import Foundation

/// What a view asks the pipeline for.
public struct ImageRequest: Sendable, Hashable {
    /// The image's URL as the app knows it: cache keys are computed on it.
    public var url: String
    /// Where to download from, when not `url` (live replay maps URLs onto the loopback origin).
    public var fetchURL: String?
    /// The box to fit and the disk format for thumbnails.
    public var processing: ProcessingOptions
    public var priority: Priority
    /// Overrides the pipeline's key strategy for this request.
    public var keyStrategy: CacheKeyStrategy?

    public enum Priority: String, Sendable, Hashable, Codable {
        /// On screen now.
        case visible
        /// About to scroll into view.
        case prefetch

        var taskPriority: TaskPriority { self == .visible ? .high : .low }
    }

    public init(
        url: String, fetchURL: String? = nil, box: ThumbnailRequest, priority: Priority = .visible,
        keyStrategy: CacheKeyStrategy? = nil
    ) {
        self.url = url
        self.fetchURL = fetchURL
        self.processing = ProcessingOptions(box)
        self.priority = priority
        self.keyStrategy = keyStrategy
    }
}

/// What the pipeline answered, and how.
public struct ImageResponse: Sendable {
    public enum Source: String, Sendable, Codable, CaseIterable {
        case memory, disk, network
        /// Joined a request for the same image already in flight.
        case coalesced
    }

    /// Time spent per stage; nil for stages this response skipped.
    public struct Timings: Sendable {
        public var lookup: Duration = .zero
        public var fetch: Duration?
        public var decode: Duration?
        public var store: Duration?
        public var total: Duration = .zero
    }

    public let image: DecodedImage
    public let source: Source
    public let timings: Timings

    /// Decoded bytes held in memory for this image.
    public var cost: Int { image.cost }
}

/// Every step the pipeline takes, for metrics and logs.
public enum PipelineEvent: Sendable {
    case memoryHit(url: String)
    case diskHit(url: String, DiskEntryKind)
    case fetched(url: String, bytes: Int, Duration)
    case decoded(url: String, Duration)
    case stored(url: String, cost: Int)
    case coalesced(url: String)
    case failed(url: String, String)
    case cancelled(url: String)
    case invalidated(url: String)
    /// A result arrived after its URL was invalidated and was not cached.
    case discardedStale(url: String)
}
