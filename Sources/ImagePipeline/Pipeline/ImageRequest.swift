import Foundation

/// What a view asks the pipeline for.
public struct ImageRequest: Sendable, Hashable {
    /// The image's URL as the app knows it: cache keys are computed on it.
    public var url: String
    /// Where to download from, when not `url` (live replay maps URLs onto the loopback origin).
    public var fetchURL: String?
    /// The box to fit; the key of a thumbnail on disk adds the configuration's disk format.
    public var processing: ProcessingOptions
    public var priority: Priority
    /// The caller's number for this request, reported with each decision the pipeline takes
    /// for it to the configuration's `DecisionRecorder`; nil for none (a replay numbers its requests).
    public var id: Int?

    public enum Priority: String, Sendable, Hashable, Codable {
        /// On screen now.
        case visible
        /// About to scroll into view.
        case prefetch

        var taskPriority: TaskPriority { self == .visible ? .high : .low }
    }

    public init(url: String, fetchURL: String? = nil, box: ThumbnailRequest, priority: Priority = .visible, id: Int? = nil) {
        self.url = url
        self.fetchURL = fetchURL
        self.processing = ProcessingOptions(box)
        self.priority = priority
        self.id = id
    }
}

/// What the pipeline answered, and how.
public struct ImageResponse: Sendable {
    public enum Source: String, Sendable, Codable, CaseIterable {
        case memory, disk, origin
        /// Joined a request for the same image already in flight.
        case joined
    }

    /// Time spent per stage after the memory miss; nil for stages this response skipped.
    /// A memory hit is not timed (every stage nil, `total` zero): it takes a few hundred
    /// nanoseconds, and the two clock reads that would time it cost a sixth of that. Time
    /// the call itself where a hit's latency matters (live replay does).
    public struct Timings: Sendable {
        public var fetch: Duration?
        /// The wait for a place on the decode queue.
        public var decodeWait: Duration?
        /// The thumbnail's making once it had a place on the decode queue (not the wait for one).
        public var decode: Duration?
        public var store: Duration?
        /// From the memory miss to the answer.
        public var total: Duration = .zero
    }

    public let image: DecodedImage
    public let source: Source
    public let timings: Timings

    /// Decoded bytes held in memory for this image.
    public var cost: Int { image.cost }
}
