import ImagePipeline

/// An app's footprint on a `DeviceModel` as its pipeline works: the baseline, the decoded
/// images memory holds, and the images being decoded. The simulator and the live replay
/// both ask it at each decoded image and both do what it says, so the two end the app and
/// warn it at the same request.
public struct DeviceFootprint: Sendable {
    public let model: DeviceModel
    /// The pressure the last settled footprint was at: a warning comes only when a footprint
    /// climbs to a level above it, so a warning the app answered by freeing memory can come again.
    private var level: MemoryPressureLevel?
    public private(set) var peakBytes = 0

    public init(_ model: DeviceModel) {
        self.model = model
        peakBytes = model.baselineBytes
    }

    /// What the system does as an image is decoded.
    public enum Verdict: Sendable, Equatable {
        case none
        /// The footprint climbed past a pressure point: the system warns the app.
        case warn(MemoryPressureLevel)
        /// The footprint went past the limit: the system ends the app.
        case end
    }

    /// A decoded image (or several in flight together: `decoding` bytes) appears beside the
    /// `held` bytes memory holds, before the cache stores it and evicts for it.
    public mutating func decoded(held: Int, decoding: Int) -> Verdict {
        let footprint = model.baselineBytes &+ held &+ decoding
        peakBytes = max(peakBytes, min(footprint, model.limitBytes &+ 1))
        if footprint > model.limitBytes {
            level = nil
            return .end
        }
        guard let climbed = Self.level(of: footprint, in: model), Self.rank(climbed) > Self.rank(level) else { return .none }
        level = climbed
        return .warn(climbed)
    }

    /// The footprint once the image is stored (or dropped) and any warning answered.
    public mutating func settled(held: Int) {
        level = Self.level(of: model.baselineBytes &+ held, in: model)
    }

    /// The app started again: only its baseline.
    public mutating func restarted() { level = nil }

    private static func rank(_ level: MemoryPressureLevel?) -> Int {
        switch level {
        case nil: 0
        case .warning: 1
        case .critical: 2
        }
    }

    static func level(of footprint: Int, in model: DeviceModel) -> MemoryPressureLevel? {
        footprint >= model.criticalBytes ? .critical : footprint >= model.warningBytes ? .warning : nil
    }
}

/// What a device model did to a run.
public struct DeviceOutcome: Sendable, Codable, Equatable {
    public var device: DeviceModel
    /// Times the system ended the app, and the sessions (launches the trace records) it ended at least once.
    public var processEnds = 0
    public var interruptedSessions = 0
    public var sessions = 0
    /// Requests in flight when the app was ended: never shown.
    public var lostRequests = 0
    /// Warnings the footprint brought (the trace's own are counted with all warnings).
    public var warnings = 0
    /// The highest footprint: baseline, memory and images being decoded (capped just past the limit).
    public var peakFootprintBytes = 0
    /// Seconds of use: per session, its first request to its last.
    public var usageSeconds = 0.0

    public init(device: DeviceModel) { self.device = device }

    /// Process ends per hour of use.
    public var processEndsPerHour: Double { usageSeconds > 0 ? Double(processEnds) / (usageSeconds / 3600) : 0 }
}
