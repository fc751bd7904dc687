/// A decision the pipeline takes on one of its tiers for one request. Each is reported
/// at the moment it is taken, under the lock that orders it against every other decision
/// on that tier, so the reports come in an order the tiers really saw: an order a
/// simulator can take the same decisions in (`CacheSimulator.answers(_:_:observed:)`).
public enum PipelineDecision: UInt8, Sendable, Hashable, CaseIterable {
    /// Looked the thumbnail up in memory.
    case memoryLookup
    /// After a memory miss, joined the flight for the thumbnail or started it.
    case flight
    /// Read the disk entry of the thumbnail, or of the original.
    case diskReadThumbnail, diskReadOriginal
    /// Asked for the original's download: joined the one in flight or started it.
    case download
    /// Stored the downloaded original on disk.
    case originalStored
    /// The download this request started ended.
    case downloadEnded
    /// Stored the thumbnail in memory.
    case memoryStored
    /// Stored the re-encoded thumbnail on disk.
    case thumbnailStored
    /// The flight this request started ended (answered, failed or abandoned).
    case flightEnded
    /// The disk tier evicted down to its low-water mark (no request: the number is -1).
    case diskTrimmed
    /// The request was answered with an error other than its cancellation (a download that
    /// failed or timed out, for it or for the flight it joined). It touches no tier, so it is
    /// reported as the error reaches the request, outside any lock.
    case failed
}

/// Hears every decision the pipeline takes for requests that carry an `ImageRequest.id`.
/// Called under the tiers' locks: it must be quick and must not call the pipeline.
public protocol DecisionRecorder: Sendable {
    /// `bytes`: for a store on disk, what the entry takes there (the simulator knows only an
    /// estimate of a re-encoded file's size, and a disk tier that trims must count the real one);
    /// 0 for every other decision.
    func record(_ decision: PipelineDecision, request: Int, bytes: Int)
}

extension DecisionRecorder {
    public func record(_ decision: PipelineDecision, request: Int) { record(decision, request: request, bytes: 0) }
}

/// One request's decisions, reported when there is a recorder and the request has a number
/// (and dropped otherwise, at the cost of a check).
public struct RequestDecisions: Sendable {
    let recorder: (any DecisionRecorder)?
    let request: Int?

    public init(_ recorder: (any DecisionRecorder)?, _ request: Int?) {
        self.recorder = recorder
        self.request = request
    }

    /// Whether decisions are heard at all.
    public var isRecording: Bool { recorder != nil && request != nil }

    @inline(__always)
    public func record(_ decision: PipelineDecision, bytes: Int = 0) {
        guard let recorder, let request else { return }
        recorder.record(decision, request: request, bytes: bytes)
    }
}
