/// The first line of a trace file.
public struct TraceHeader: Codable, Sendable, Equatable {
    /// The trace format's version; readers refuse versions they do not know.
    public static let currentSchema = 1

    public var schema: Int
    /// Which app the trace models ("ArticleProject", "Vanilladin", …).
    public var app: String
    public var modelVersion: String
    public var seed: UInt64
    public var sessions: Int
    /// The command that produced the file.
    public var generator: String

    public init(app: String, modelVersion: String, seed: UInt64, sessions: Int, generator: String, schema: Int = currentSchema) {
        self.schema = schema
        self.app = app
        self.modelVersion = modelVersion
        self.seed = seed
        self.sessions = sessions
        self.generator = generator
    }
}

/// One image a screen asks for, with the ground truth of what the server returns.
public struct ImageRequestEvent: Codable, Sendable, Equatable {
    /// Unique within the trace; `cancel` events refer to it.
    public var id: Int
    /// The URL as the app saw it (keys are computed on it).
    public var url: String
    /// Ground truth: which picture the server returns for this request.
    public var content: UInt64
    /// Encoded size in bytes.
    public var bytes: Int
    public var width: Int
    public var height: Int
    public var format: String
    /// Whether the picture has an alpha band; absent means opaque (as every
    /// picture the loopback origin serves).
    public var alpha: Bool?
    /// The display box in points, and the screen scale.
    public var boxWidth: Int
    public var boxHeight: Int
    public var scale: Double
    public var priority: Priority
    /// How long the recorded fetch took, when the recording knows (HAR imports).
    public var fetchMilliseconds: Int?
    /// Its parts, in milliseconds, where the recording kept them (a HAR entry's `timings`): queued
    /// for a connection, the name lookup, the connection (TLS included), the request sent, the wait
    /// for the first byte, and the body received. Absent: not recorded, or not part of this fetch
    /// (a connection already open has no `fetchConnect`).
    public var fetchBlocked: Int?
    public var fetchDNS: Int?
    public var fetchConnect: Int?
    public var fetchSend: Int?
    public var fetchWait: Int?
    public var fetchReceive: Int?

    /// The recorded parts, in the order a fetch goes through them.
    public var fetchParts: FetchParts {
        get { FetchParts(blocked: fetchBlocked, dns: fetchDNS, connect: fetchConnect, send: fetchSend, wait: fetchWait, receive: fetchReceive) }
        set { (fetchBlocked, fetchDNS, fetchConnect, fetchSend, fetchWait, fetchReceive) = (newValue.blocked, newValue.dns, newValue.connect, newValue.send, newValue.wait, newValue.receive) }
    }

    /// A fetch's recorded parts, in milliseconds (nil: not recorded, or not part of this fetch).
    public struct FetchParts: Sendable, Equatable {
        public var blocked, dns, connect, send, wait, receive: Int?

        public init(blocked: Int? = nil, dns: Int? = nil, connect: Int? = nil, send: Int? = nil, wait: Int? = nil, receive: Int? = nil) {
            (self.blocked, self.dns, self.connect, self.send, self.wait, self.receive) = (blocked, dns, connect, send, wait, receive)
        }

        /// The first part out of 0…`TraceEvent.maximumTime`, by its trace field's name.
        var outOfRange: (name: String, milliseconds: Int)? {
            func check(_ name: String, _ value: Int?) -> (name: String, milliseconds: Int)? {
                guard let value, !(0...TraceEvent.maximumTime).contains(value) else { return nil }
                return (name, value)
            }
            return check("fetchBlocked", blocked) ?? check("fetchDNS", dns) ?? check("fetchConnect", connect)
                ?? check("fetchSend", send) ?? check("fetchWait", wait) ?? check("fetchReceive", receive)
        }
    }
    /// Where `width` and `height` came from when the recording did not hold the image
    /// (a HAR without bodies); absent when they were read from the image itself.
    public var sizeEstimate: SizeEstimate?

    public enum Priority: String, Codable, Sendable { case visible, prefetch }

    /// How a picture's size was estimated without its bytes.
    public enum SizeEstimate: String, Codable, Sendable, CaseIterable {
        /// Width and height parameters in the URL (`w=400&h=300`, `/400x300/`).
        case url
        /// The response's length at the format's typical bytes per pixel, square.
        case contentLength = "content-length"
        /// A size the user gave for pictures of unknown size (`--assume-pixels`).
        case assumed
    }

    /// The largest values a request may carry: beyond them no real image or screen
    /// exists, and arithmetic downstream (costs, fitted sizes) could overflow.
    public static let maximumBytes = 1 << 40
    public static let maximumPixels = 1_000_000
    public static let maximumBoxPoints = 100_000
    public static let maximumScale = 16.0

    /// What is out of range, if anything: checked where a trace is read, so no
    /// command downstream meets it.
    public var outOfRange: String? {
        if !(0...Self.maximumBytes).contains(bytes) { return "bytes \(bytes) is outside 0…\(Self.maximumBytes)" }
        if !(0...Self.maximumPixels).contains(width) || !(0...Self.maximumPixels).contains(height) {
            return "size \(width)×\(height) is outside 0…\(Self.maximumPixels) pixels a side"
        }
        if !(0...Self.maximumBoxPoints).contains(boxWidth) || !(0...Self.maximumBoxPoints).contains(boxHeight) {
            return "box \(boxWidth)×\(boxHeight) is outside 0…\(Self.maximumBoxPoints) points a side"
        }
        if !(scale > 0 && scale <= Self.maximumScale) { return "scale \(scale) is not above 0 and at most \(Self.maximumScale)" }
        if let fetchMilliseconds, !(0...TraceEvent.maximumTime).contains(fetchMilliseconds) {
            return "fetchMilliseconds \(fetchMilliseconds) is outside 0…\(TraceEvent.maximumTime)"
        }
        if let (name, value) = fetchParts.outOfRange { return "\(name) \(value) is outside 0…\(TraceEvent.maximumTime)" }
        return nil
    }

    public init(id: Int, url: String, content: UInt64, bytes: Int, width: Int, height: Int, format: String, alpha: Bool? = nil,
                boxWidth: Int, boxHeight: Int, scale: Double, priority: Priority, fetchMilliseconds: Int? = nil,
                sizeEstimate: SizeEstimate? = nil) {
        self.id = id
        self.url = url
        self.content = content
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
        self.alpha = alpha
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.scale = scale
        self.priority = priority
        self.fetchMilliseconds = fetchMilliseconds
        self.sizeEstimate = sizeEstimate
    }
}

/// What happens in a session, in order. Times are milliseconds from the session's start.
public enum TraceEventKind: Sendable, Equatable {
    /// A new session starts (numbered from 1).
    case session(Int)
    /// An API page request (a list page, a search, a refresh).
    case api(url: String)
    case image(ImageRequestEvent)
    /// The request with this id is no longer wanted (a cell was reused).
    case cancel(id: Int)
    case memoryWarning(level: String)
    /// The app restarts: memory cold, disk warm.
    case relaunch
    /// The device goes offline (true) or back online (false).
    case offline(Bool)
    /// A URL's content changed or was deleted (a product edit).
    case invalidate(url: String)
}

public struct TraceEvent: Sendable, Equatable {
    /// Milliseconds since the session began (at most `maximumTime`).
    public var time: Int
    public var kind: TraceEventKind

    public init(time: Int, _ kind: TraceEventKind) {
        self.time = time
        self.kind = kind
    }

    /// The latest an event may come after its session began: a year. Later times are
    /// refused where they enter (trace or HAR), so no arithmetic on them can overflow.
    public static let maximumTime = 366 * 24 * 3_600_000
}

extension TraceEvent: Codable {
    private enum Keys: String, CodingKey {
        case type, t, session, url, image, id, level, offline
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        time = try container.decode(Int.self, forKey: .t)
        guard time >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .t, in: container, debugDescription: "time is negative")
        }
        guard time <= Self.maximumTime else {
            throw DecodingError.dataCorruptedError(
                forKey: .t, in: container, debugDescription: "time \(time) ms is more than a year after the session began")
        }
        switch try container.decode(String.self, forKey: .type) {
        case "session": kind = .session(try container.decode(Int.self, forKey: .session))
        case "api": kind = .api(url: try container.decode(String.self, forKey: .url))
        case "image":
            let image = try container.decode(ImageRequestEvent.self, forKey: .image)
            if let problem = image.outOfRange {
                throw DecodingError.dataCorruptedError(forKey: .image, in: container, debugDescription: problem)
            }
            kind = .image(image)
        case "cancel": kind = .cancel(id: try container.decode(Int.self, forKey: .id))
        case "memoryWarning": kind = .memoryWarning(level: try container.decode(String.self, forKey: .level))
        case "relaunch": kind = .relaunch
        case "offline": kind = .offline(try container.decode(Bool.self, forKey: .offline))
        case "invalidate": kind = .invalidate(url: try container.decode(String.self, forKey: .url))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown event type \"\(other)\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(time, forKey: .t)
        switch kind {
        case .session(let number):
            try container.encode("session", forKey: .type)
            try container.encode(number, forKey: .session)
        case .api(let url):
            try container.encode("api", forKey: .type)
            try container.encode(url, forKey: .url)
        case .image(let image):
            try container.encode("image", forKey: .type)
            try container.encode(image, forKey: .image)
        case .cancel(let id):
            try container.encode("cancel", forKey: .type)
            try container.encode(id, forKey: .id)
        case .memoryWarning(let level):
            try container.encode("memoryWarning", forKey: .type)
            try container.encode(level, forKey: .level)
        case .relaunch:
            try container.encode("relaunch", forKey: .type)
        case .offline(let offline):
            try container.encode("offline", forKey: .type)
            try container.encode(offline, forKey: .offline)
        case .invalidate(let url):
            try container.encode("invalidate", forKey: .type)
            try container.encode(url, forKey: .url)
        }
    }
}
