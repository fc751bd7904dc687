import Crypto
import Foundation
import ImagePipeline

/// Turns a HAR 1.2 file (what browser dev tools, Charles, Proxyman and
/// mitmproxy export) into a trace: every image response (by content type)
/// becomes an image request with its size and fetch time, every JSON response
/// an API page. With bodies in the HAR, the content id is a hash of the bytes
/// and the dimensions are read from the image header; without them the
/// content id is a hash of the URL's resource identity (`URLNormalizer.resourceIdentity`: its
/// spellings are one picture, its Unicode forms are not) and the size is
/// estimated (`ImageSizeEstimate`: the URL's size parameters, else the length),
/// marked as estimated, or left unknown (0×0) when nothing tells it.
public enum HARImporter {
    public struct Summary: Sendable, Equatable {
        public var entries = 0
        public var images = 0
        public var apiPages = 0
        public var skipped = 0
        /// Images whose size was estimated, by how; and those whose size is unknown.
        public var estimated: [ImageRequestEvent.SizeEstimate: Int] = [:]
        public var unknownSizes = 0
    }

    /// Writes the trace; a HAR with no image or JSON response is refused unless `allowsEmpty`.
    /// The HAR is read one entry at a time (`HARStream`) and, when its entries are in time
    /// order (as browsers and proxies write them), each event is written as it is read, so
    /// memory does not grow with the number of entries; entries out of order are read
    /// again, kept as events and sorted.
    public static func importFile(_ path: String, to output: String, generator: String, allowsEmpty: Bool = false) throws -> Summary {
        let header = TraceHeader(
            app: "HAR \(URL(fileURLWithPath: path).lastPathComponent)", modelVersion: "har-1.2", seed: 0, sessions: 1, generator: generator)
        var summary = Summary()
        func count(_ kind: TraceEventKind) {
            switch kind {
            case .image(let image):
                summary.images += 1
                if let estimate = image.sizeEstimate { summary.estimated[estimate, default: 0] += 1 }
                if image.width == 0 || image.height == 0 { summary.unknownSizes += 1 }
            case .api: summary.apiPages += 1
            default: break
            }
        }
        var writer: TraceWriter? = try TraceWriter(path: output, header: header)
        try writer?.append(TraceEvent(time: 0, .session(1)))
        var first: Double?, last = -Double.infinity
        var numbering = ImageNumbering()
        let read = try HARStream(path: path).forEachEntry(transform: EntryReader.event(of:)) { parsed throws(ImportError) in
            guard let writing = writer, let event = parsed.map({ numbering.numbered($0) }) else { return }
            guard event.start >= last else {
                writer = nil  // out of order: dropped, nothing written; read again below
                return
            }
            last = event.start
            let origin = first ?? event.start
            first = origin
            try checkSpan(event, from: origin)
            count(event.kind)
            do { try writing.append(TraceEvent(time: Int((event.start - origin).rounded()), event.kind)) } catch {
                throw .unreadable(file: output, reason: "\(PlainFailure.clause(error))")
            }
        }
        try checkVersion(read.version)
        summary.entries = read.entries
        if let writer {
            try refuseEmpty(summary, allowsEmpty: allowsEmpty, file: path)
            summary.skipped = summary.entries - summary.images - summary.apiPages
            try writer.close()
            return summary
        }
        let sorted = try events(from: HARStream(path: path))
        summary = Summary(entries: sorted.entries)
        for event in sorted.events { count(event.kind) }
        try refuseEmpty(summary, allowsEmpty: allowsEmpty, file: path)
        let sortedWriter = try TraceWriter(path: output, header: header)
        try sortedWriter.append(TraceEvent(time: 0, .session(1)))
        for event in sorted.events { try sortedWriter.append(event) }
        summary.skipped = summary.entries - summary.images - summary.apiPages
        try sortedWriter.close()
        return summary
    }

    private static func refuseEmpty(_ summary: Summary, allowsEmpty: Bool, file: String) throws(ImportError) {
        guard summary.images + summary.apiPages == 0, !allowsEmpty else { return }
        throw ImportError.badField(
            file: file, path: "$.log.entries",
            reason: "no image or JSON responses among \(summary.entries) entries, so the trace would be empty (--allow-empty writes it)")
    }

    /// HAR 1.2 says a missing version means 1.1; a later version may mean other fields.
    private static func checkVersion(_ version: JSONNode?) throws(ImportError) {
        guard let version, !["1.1", "1.2"].contains(try version.string()) else { return }
        throw version.fail("HAR version \(try version.string()) is not one this importer reads (1.1, 1.2)")
    }

    /// A trace covers one session: an entry more than a year after the first is refused.
    private static func checkSpan(_ event: TimedEvent, from first: Double) throws(ImportError) {
        if event.start - first > Double(TraceEvent.maximumTime) {
            throw event.date.fail("more than a year after the first entry: a trace covers one session")
        }
    }

    /// A HAR size: bytes, or -1 for unknown (HAR 1.2's convention); anything else is refused.
    fileprivate static func byteCount(_ node: JSONNode) throws(ImportError) -> Int {
        let value = try node.int()
        guard value >= -1 else { throw node.fail("not a size in bytes (or -1 for unknown): \(value)") }
        guard value <= ImageRequestEvent.maximumBytes else {
            throw node.fail("\(value) bytes is more than the largest response taken, \(ImageRequestEvent.maximumBytes) (1 TiB)")
        }
        return value
    }

    /// The events of one HAR document, in start order, times from the first entry.
    static func events(from data: Data, file: String) throws(ImportError) -> (events: [TraceEvent], entries: Int) {
        try events(from: HARStream(data: data, file: file))
    }

    private static func events(from stream: HARStream) throws(ImportError) -> (events: [TraceEvent], entries: Int) {
        var timed: [TimedEvent] = []
        var numbering = ImageNumbering()
        let read = try stream.forEachEntry(transform: EntryReader.event(of:)) { parsed throws(ImportError) in
            if let event = parsed { timed.append(numbering.numbered(event)) }
        }
        try checkVersion(read.version)
        let first = timed.map(\.start).min() ?? 0
        for event in timed { try checkSpan(event, from: first) }
        let events = timed.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map { TraceEvent(time: Int(($0.element.start - first).rounded()), $0.element.kind) }
        return (events, read.entries)
    }

    /// An entry's event with its start (milliseconds since 1970) and the field that gave it.
    /// Sendable: the field is Foundation's immutable parsed JSON, read on the thread that parsed it and after.
    struct TimedEvent: @unchecked Sendable {
        var start: Double
        var kind: TraceEventKind
        var date: JSONNode
    }

    /// Numbers image requests in file order (entries are parsed on several threads).
    struct ImageNumbering {
        private var nextID = 0

        mutating func numbered(_ event: TimedEvent) -> TimedEvent {
            guard case .image(var image) = event.kind else { return event }
            nextID += 1
            image.id = nextID
            return TimedEvent(start: event.start, kind: .image(image), date: event.date)
        }
    }

    /// Turns an entry into its event.
    enum EntryReader {
        /// The entry's event, or nil for a response that is neither a successful image nor JSON;
        /// image requests are numbered afterwards (`ImageNumbering`).
        @Sendable static func event(of entry: JSONNode) throws(ImportError) -> TimedEvent? {
            let date = try entry.required("startedDateTime")
            let start = try HARImporter.startTime(date)
            let request = try entry.required("request")
            let response = try entry.required("response")
            let url = try request.required("url").string()
            let status = try response.required("status").int()
            let content = try response.required("content")
            let mime = try content.optional("mimeType")?.string().lowercased() ?? ""
            guard (200..<300).contains(status) else { return nil }
            if mime.hasPrefix("application/json") { return TimedEvent(start: start, kind: .api(url: url), date: date) }
            guard mime.hasPrefix("image/") else { return nil }
            let body = try HARImporter.body(content)
            var size = try content.optional("size").map(HARImporter.byteCount) ?? -1
            if size < 0 { size = try response.optional("bodySize").map(HARImporter.byteCount) ?? -1 }
            if size < 0 { size = try HARImporter.contentLength(response) ?? 0 }
            var width = 0, height = 0
            var estimate: ImageRequestEvent.SizeEstimate?
            // A content type the trace format has no name for is not a picture the trace can carry.
            guard var format = HARImporter.traceFormat(mime: mime) else { return nil }
            if let body, let header = try? Thumbnailer().header(of: body) {
                (width, height, format) = (header.width, header.height, header.format.rawValue)
                size = body.count
            } else if let fromURL = ImageSizeEstimate.fromURL(url) {
                (width, height, estimate) = (fromURL.width, fromURL.height, .url)
            } else if let fromLength = ImageSizeEstimate.fromLength(size, format: format) {
                (width, height, estimate) = (fromLength.width, fromLength.height, .contentLength)
            }
            // HAR's total time; -1 means unknown. Anything not a plausible duration is an error,
            // never a trap on the conversion (found by fuzzing).
            let milliseconds = try entry.optional("time").flatMap { (node) throws(ImportError) -> Int? in
                let value = try node.double()
                guard value.isFinite, value < 1e12, value >= 0 || value == -1 else {
                    throw node.fail("not a duration in milliseconds (or -1 for unknown): \(value)")
                }
                return value < 0 ? nil : Int(value.rounded())
            }
            return TimedEvent(start: start, kind: .image(ImageRequestEvent(
                id: 0, url: url, content: body.map(HARImporter.contentID) ?? HARImporter.contentID(Data(URLNormalizer.resourceIdentity.normalize(url).utf8)), bytes: max(size, 0),
                width: width, height: height, format: format, boxWidth: width, boxHeight: height, scale: 1,
                priority: .visible, fetchMilliseconds: milliseconds, sizeEstimate: estimate)), date: date)
        }
    }

    /// The trace's name for an image content type (`image/svg+xml` → svg), or nil for one it lacks.
    static func traceFormat(mime: String) -> String? {
        let subtype = mime.dropFirst("image/".count).prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        let names = ["jpg": "jpeg", "pjpeg": "jpeg", "x-png": "png", "svg+xml": "svg", "x-icon": "ico", "vnd.microsoft.icon": "ico",
                     "tif": "tiff", "x-ms-bmp": "bmp", "heif": "heic"]
        let name = names[subtype] ?? subtype
        return TraceFormatNames.imageFormats.contains(name) ? name : nil
    }

    /// The response's `Content-Length` header, when it has one.
    fileprivate static func contentLength(_ response: JSONNode) throws(ImportError) -> Int? {
        guard let headers = try response.optional("headers")?.array() else { return nil }
        for header in headers where try header.optional("name")?.string().lowercased() == "content-length" {
            guard let value = try header.optional("value").map({ (node) throws(ImportError) in try node.string() }),
                  let length = Int(value.trimmingCharacters(in: .whitespaces)), length >= 0 else { continue }
            return min(length, ImageRequestEvent.maximumBytes)
        }
        return nil
    }

    /// Milliseconds since 1970 of an ISO 8601 date with optional fractional seconds.
    fileprivate static func startTime(_ node: JSONNode) throws(ImportError) -> Double {
        let text = try node.string()
        switch ISO8601Time.parse(text) {
        case .success(let milliseconds): return milliseconds
        case .failure(let problem): throw node.fail("\"\(text.prefix(64))\": \(problem.reason)")
        }
    }

    /// The response body when the HAR holds it (plain text or base64).
    fileprivate static func body(_ content: JSONNode) throws(ImportError) -> Data? {
        guard let text = try content.optional("text")?.string() else { return nil }
        if try content.optional("encoding")?.string() == "base64" {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw JSONNode(value: text, path: content.path + ".text", file: content.file).fail("not valid base64")
            }
            return data
        }
        return Data(text.utf8)
    }

    fileprivate static func contentID(_ bytes: Data) -> UInt64 {
        SHA256.hash(data: bytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
}
