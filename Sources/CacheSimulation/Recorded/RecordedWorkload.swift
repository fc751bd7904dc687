import ImagePipeline
import Workloads

/// A recorded trace read once into compact arrays, independent of any cache
/// setting: URLs, pictures and boxes interned to integers, sessions laid end
/// to end on one clock, cancels and offline spells resolved onto the requests
/// they affect. `SimulationTraceBuilder` turns it into a `SimulationTrace`
/// per key strategy; live replay walks the same requests.
public struct RecordedWorkload: Sendable {
    /// The file's name, for reports.
    public let name: String
    public let header: TraceHeader
    /// Distinct URLs, boxes and pictures; requests refer to them by index.
    public private(set) var urls: [String] = []
    public private(set) var boxes: [ThumbnailRequest] = []
    public private(set) var requests: [Request] = []
    public private(set) var events: [Event] = []
    /// The ground-truth content id behind each interned picture.
    public private(set) var contents: [UInt64] = []
    public private(set) var sessions = 0
    /// The fetch times the recording kept (a HAR entry's `time`), in request order; empty for a
    /// trace without them (`RecordedNetwork` fits a profile to them).
    public private(set) var recordedFetches: [RecordedFetch] = []

    public struct RecordedFetch: Sendable, Equatable {
        /// The request's index in `requests`.
        public var request: Int
        public var milliseconds: Int
        /// Whether the recording opened a connection for it (its parts hold a connect time) or sent it on
        /// one already open; nil when the recording kept no parts.
        public var connected: Bool?
    }

    public struct Request: Sendable {
        /// The request id in the trace (cancels name it).
        public var id: Int
        public var url: Int32
        public var box: Int32
        public var content: Int32
        public var bytes: Int
        public var width: Int32
        public var height: Int32
        public var format: ImageFormat?
        /// Whether the picture has an alpha band (4 decoded bands instead of 3).
        public var hasAlpha: Bool
        public var priority: ImageRequest.Priority
        /// Nanoseconds on the workload's clock (sessions one hour apart).
        public var time: UInt64
        /// Milliseconds after the request that the app cancelled it, if it did.
        public var cancelledAfter: Int?
        public var offline: Bool
        public var session: Int32
    }

    public struct Event: Sendable {
        public var beforeRequest: Int
        public var time: UInt64
        public var kind: Kind

        public enum Kind: Sendable {
            case memoryWarning(MemoryPressureLevel)
            /// The app restarts: memory starts empty, the disk stays.
            case relaunch
            /// A recorded session starts: each is another device, both tiers start empty.
            case newDevice
            /// A URL's picture changed.
            case invalidate(url: Int32)
        }
    }

    /// Image requests whose picture's size the recording did not know (0×0: a HAR without
    /// bodies, lengths or size parameters). Their memory cost would be 0.
    public var unknownSizeRequests: Int { requests.reduce(0) { $0 + ($1.width == 0 || $1.height == 0 ? 1 : 0) } }

    /// The workload with every picture of unknown size taken as `width`×`height` pixels,
    /// shown whole (its box that size at scale 1, as a HAR import's boxes are).
    public func assumingPixels(width: Int, height: Int) -> RecordedWorkload {
        var workload = self
        let box = ThumbnailRequest(width: width, height: height, scale: 1)
        let emptyBoxes = Set(boxes.indices.filter { boxes[$0].width == 0 || boxes[$0].height == 0 })
        if !emptyBoxes.isEmpty, !workload.boxes.contains(box) { workload.boxes.append(box) }
        let boxID = Int32(workload.boxes.firstIndex(of: box) ?? 0)
        for index in workload.requests.indices where workload.requests[index].width == 0 || workload.requests[index].height == 0 {
            workload.requests[index].width = Int32(width)
            workload.requests[index].height = Int32(height)
            if emptyBoxes.contains(Int(workload.requests[index].box)) { workload.requests[index].box = boxID }
        }
        return workload
    }

    /// Gap on the workload clock between one session's last event and the next session.
    static let sessionGap: UInt64 = 3_600 * 1_000_000_000

    /// Reads a trace file (`.jsonl` or `.jsonl.gz`, as `record` and `import` write it) into
    /// interned arrays; a malformed line is a `TraceError` naming its file and line.
    public static func load(path: String, allowsEmpty: Bool = false) throws(TraceError) -> RecordedWorkload {
        var reader = try TraceReader(path: path, allowsEmpty: allowsEmpty)
        var workload = RecordedWorkload(name: path.split(separator: "/").last.map(String.init) ?? path, header: reader.header)
        try workload.read(&reader)
        return workload
    }

    private init(name: String, header: TraceHeader) {
        self.name = name
        self.header = header
    }

    private mutating func read(_ reader: inout TraceReader) throws(TraceError) {
        var urlIDs: [ByteExactString: Int32] = [:], boxIDs: [ThumbnailRequest: Int32] = [:], contentIDs: [UInt64: Int32] = [:]
        var pending: [Int: Int] = [:]  // request id → index, for cancels
        var base: UInt64 = 0, last: UInt64 = 0, offline = false
        func intern<Key: Hashable>(_ key: Key, _ table: inout [Key: Int32], _ add: (Key) -> Void) -> Int32 {
            if let id = table[key] { return id }
            let id = Int32(table.count)
            table[key] = id
            add(key)
            return id
        }
        // Event times are at most a year (the reader checks); sessions add up, so the sums are checked too.
        func checkedSum(_ a: UInt64, _ b: UInt64) throws(TraceError) -> UInt64 {
            let (sum, overflow) = a.addingReportingOverflow(b)
            guard !overflow else {
                throw .malformed(file: reader.path, line: reader.line, reason: "the sessions' times add up to more than the clock holds")
            }
            return sum
        }
        while let event = try reader.next() {
            let time = try checkedSum(base, UInt64(event.time) * 1_000_000)
            last = max(last, time)
            switch event.kind {
            case .session:
                sessions += 1
                base = sessions == 1 ? 0 : try checkedSum(last, Self.sessionGap)
                last = base
                offline = false
                pending.removeAll(keepingCapacity: true)
                events.append(Event(beforeRequest: requests.count, time: base, kind: .newDevice))
            case .image(let image):
                let box = ThumbnailRequest(width: image.boxWidth, height: image.boxHeight, scale: image.scale)
                pending[image.id] = requests.count
                requests.append(Request(
                    id: image.id,
                    url: intern(ByteExactString(image.url), &urlIDs) { urls.append($0.string) },
                    box: intern(box, &boxIDs) { boxes.append($0) },
                    content: intern(image.content, &contentIDs) { contents.append($0) },
                    bytes: image.bytes, width: Int32(clamping: image.width), height: Int32(clamping: image.height),
                    format: ImageFormat(rawValue: image.format), hasAlpha: image.alpha ?? false,
                    priority: image.priority == .visible ? .visible : .prefetch,
                    time: time, cancelledAfter: nil, offline: offline, session: Int32(sessions)))
                if let milliseconds = image.fetchMilliseconds {
                    let parts = image.fetchParts
                    let recorded = parts != ImageRequestEvent.FetchParts()
                    recordedFetches.append(RecordedFetch(
                        request: requests.count - 1, milliseconds: milliseconds, connected: recorded ? (parts.connect ?? 0) > 0 : nil))
                }
            case .cancel(let id):
                // The reader has checked that the cancel follows its request in this session.
                if let index = pending.removeValue(forKey: id) {
                    requests[index].cancelledAfter = Int((time - requests[index].time) / 1_000_000)
                }
            case .memoryWarning(let level):
                events.append(Event(beforeRequest: requests.count, time: time, kind: .memoryWarning(level == "critical" ? .critical : .warning)))
            case .relaunch:
                offline = false
                events.append(Event(beforeRequest: requests.count, time: time, kind: .relaunch))
            case .offline(let isOffline):
                offline = isOffline
            case .invalidate(let url):
                events.append(Event(beforeRequest: requests.count, time: time, kind: .invalidate(url: intern(ByteExactString(url), &urlIDs) { urls.append($0.string) })))
            case .api:
                break
            }
        }
    }

    /// The first `count` requests with the events among them.
    public func prefix(_ count: Int) -> RecordedWorkload {
        guard count < requests.count else { return self }
        var cut = self
        cut.requests = Array(requests.prefix(count))
        cut.events = events.filter { $0.beforeRequest < count }
        cut.recordedFetches = recordedFetches.filter { $0.request < count }
        cut.sessions = Int(cut.requests.last?.session ?? 0)
        return cut
    }

    /// The first `count` sessions, whole: a bounded slice that keeps each
    /// session's relaunches, warnings and invalidations.
    public func prefix(sessions count: Int) -> RecordedWorkload {
        guard count < sessions else { return self }
        return prefix(requests.firstIndex { $0.session > Int32(count) } ?? requests.count)
    }

    /// The thumbnail a request makes, by the pipeline's cost model.
    public func thumbnailCost(of request: Request) -> ThumbnailCost {
        ThumbnailCost(
            sourceWidth: Int(request.width), sourceHeight: Int(request.height), format: request.format, hasAlpha: request.hasAlpha,
            fitting: boxes[Int(request.box)])
    }

    /// What the decoder does to make a request's thumbnail from its original, by the pipeline's rule.
    public func decodeWork(of request: Request) -> DecodeWork {
        boxes[Int(request.box)].decodeWork(width: Int(request.width), height: Int(request.height), format: request.format)
    }

    /// The whole picture at its own size, as an app that keeps or re-encodes originals holds it.
    func wholeImageCost(of request: Request) -> ThumbnailCost {
        ThumbnailCost(
            sourceWidth: Int(request.width), sourceHeight: Int(request.height), format: nil, hasAlpha: request.hasAlpha,
            fitting: ThumbnailRequest(width: Int(request.width), height: Int(request.height)))
    }
}
