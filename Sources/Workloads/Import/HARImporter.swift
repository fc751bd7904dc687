import Crypto
import Foundation
import ImagePipeline

/// Turns a HAR 1.2 file (what browser dev tools, Charles, Proxyman and
/// mitmproxy export) into a trace: every image response (by content type)
/// becomes an image request with its size and fetch time, every JSON response
/// an API page. With bodies in the HAR, the content id is a hash of the bytes
/// and the dimensions are read from the image header; without them the
/// content id is a hash of the URL (one URL, one picture) and the size is
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
    public static func importFile(_ path: String, to output: String, generator: String, allowsEmpty: Bool = false) throws -> Summary {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw ImportError.unreadable(file: path, reason: "cannot read (\(error.localizedDescription))")
        }
        let events = try events(from: data, file: path)
        if events.events.isEmpty, !allowsEmpty {
            throw ImportError.badField(
                file: path, path: "$.log.entries",
                reason: "no image or JSON responses among \(events.entries) entries, so the trace would be empty (--allow-empty writes it)")
        }
        let writer = try TraceWriter(path: output, header: TraceHeader(
            app: "HAR \(URL(fileURLWithPath: path).lastPathComponent)", modelVersion: "har-1.2", seed: 0, sessions: 1, generator: generator))
        try writer.append(TraceEvent(time: 0, .session(1)))
        var summary = Summary()
        summary.entries = events.entries
        for event in events.events {
            switch event.kind {
            case .image(let image):
                summary.images += 1
                if let estimate = image.sizeEstimate { summary.estimated[estimate, default: 0] += 1 }
                if image.width == 0 || image.height == 0 { summary.unknownSizes += 1 }
            case .api: summary.apiPages += 1
            default: break
            }
            try writer.append(event)
        }
        summary.skipped = summary.entries - summary.images - summary.apiPages
        try writer.close()
        return summary
    }

    /// A HAR size: bytes, or -1 for unknown (HAR 1.2's convention); anything else is refused.
    private static func byteCount(_ node: JSONNode) throws(ImportError) -> Int {
        let value = try node.int()
        guard value >= -1 else { throw node.fail("not a size in bytes (or -1 for unknown): \(value)") }
        return value
    }

    /// The events of one HAR document, in start order, times from the first entry.
    static func events(from data: Data, file: String) throws(ImportError) -> (events: [TraceEvent], entries: Int) {
        let root = try JSONNode.parse(data, file: file)
        let log = try root.required("log")
        // HAR 1.2 says a missing version means 1.1; a later version may mean other fields.
        if let version = try log.optional("version"), !["1.1", "1.2"].contains(try version.string()) {
            throw version.fail("HAR version \(try version.string()) is not one this importer reads (1.1, 1.2)")
        }
        let entries = try log.required("entries").array()
        var timed: [(start: Double, event: TraceEventKind, date: JSONNode)] = []
        var nextID = 0
        for entry in entries {
            let date = try entry.required("startedDateTime")
            let start = try startTime(date)
            let request = try entry.required("request")
            let response = try entry.required("response")
            let url = try request.required("url").string()
            let status = try response.required("status").int()
            let content = try response.required("content")
            let mime = try content.optional("mimeType")?.string().lowercased() ?? ""
            guard (200..<300).contains(status) else { continue }
            if mime.hasPrefix("application/json") {
                timed.append((start, .api(url: url), date))
                continue
            }
            guard mime.hasPrefix("image/") else { continue }
            let body = try Self.body(content)
            var size = try content.optional("size").map(Self.byteCount) ?? -1
            if size < 0 { size = try response.optional("bodySize").map(Self.byteCount) ?? -1 }
            if size < 0 { size = try Self.contentLength(response) ?? 0 }
            var width = 0, height = 0
            var estimate: ImageRequestEvent.SizeEstimate?
            var format = String(mime.dropFirst("image/".count).prefix { $0 != ";" })
            if format == "jpg" { format = "jpeg" }
            if let body, let header = try? Thumbnailer().header(of: body) {
                (width, height, format) = (header.width, header.height, header.format.rawValue)
                size = body.count
            } else if let fromURL = ImageSizeEstimate.fromURL(url) {
                (width, height, estimate) = (fromURL.width, fromURL.height, .url)
            } else if let fromLength = ImageSizeEstimate.fromLength(size, format: format) {
                (width, height, estimate) = (fromLength.width, fromLength.height, .contentLength)
            }
            nextID += 1
            // HAR's total time; -1 means unknown. Anything not a plausible duration is an error,
            // never a trap on the conversion (found by fuzzing).
            let milliseconds = try entry.optional("time").flatMap { (node) throws(ImportError) -> Int? in
                let value = try node.double()
                guard value.isFinite, value < 1e12, value >= 0 || value == -1 else {
                    throw node.fail("not a duration in milliseconds (or -1 for unknown): \(value)")
                }
                return value < 0 ? nil : Int(value.rounded())
            }
            timed.append((start, .image(ImageRequestEvent(
                id: nextID, url: url, content: body.map(contentID) ?? contentID(Data(url.utf8)), bytes: max(size, 0),
                width: width, height: height, format: format, boxWidth: width, boxHeight: height, scale: 1,
                priority: .visible, fetchMilliseconds: milliseconds, sizeEstimate: estimate)), date))
        }
        let first = timed.map(\.start).min() ?? 0
        if let late = timed.first(where: { $0.start - first > Double(TraceEvent.maximumTime) }) {
            throw late.date.fail("more than a year after the first entry: a trace covers one session")
        }
        let events = timed.enumerated()
            .sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map { TraceEvent(time: Int(($0.element.start - first).rounded()), $0.element.event) }
        return (events, entries.count)
    }

    /// The response's `Content-Length` header, when it has one.
    private static func contentLength(_ response: JSONNode) throws(ImportError) -> Int? {
        guard let headers = try response.optional("headers")?.array() else { return nil }
        for header in headers where try header.optional("name")?.string().lowercased() == "content-length" {
            guard let value = try header.optional("value").map({ (node) throws(ImportError) in try node.string() }),
                  let length = Int(value.trimmingCharacters(in: .whitespaces)), length >= 0 else { continue }
            return min(length, ImageRequestEvent.maximumBytes)
        }
        return nil
    }

    /// Milliseconds since 1970 of an ISO 8601 date with optional fractional seconds.
    private static func startTime(_ node: JSONNode) throws(ImportError) -> Double {
        let text = try node.string()
        guard let milliseconds = ISO8601Time.milliseconds(text) else { throw node.fail("not an ISO 8601 date: \"\(text.prefix(64))\"") }
        return milliseconds
    }

    /// The response body when the HAR holds it (plain text or base64).
    private static func body(_ content: JSONNode) throws(ImportError) -> Data? {
        guard let text = try content.optional("text")?.string() else { return nil }
        if try content.optional("encoding")?.string() == "base64" {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw JSONNode(value: text, path: content.path + ".text", file: content.file).fail("not valid base64")
            }
            return data
        }
        return Data(text.utf8)
    }

    private static func contentID(_ bytes: Data) -> UInt64 {
        SHA256.hash(data: bytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
}
