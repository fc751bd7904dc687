import Crypto
import Foundation
import ImagePipeline

extension HARImporter {
    /// Why an entry is not in the trace.
    public enum SkipReason: String, CaseIterable, Sendable, Comparable {
        case dataURL = "data: URLs (nothing was fetched)"
        case noContent = "204 No Content"
        case redirect = "redirects"
        case failed = "failed or aborted (status 0, 4xx, 5xx)"
        case notAPictureType = "neither a picture nor JSON by content type"
        case emptyBody = "empty bodies"
        case notAPicture = "bodies that are not pictures by their bytes"
        case unseenRevalidation = "304s of URLs not fetched earlier in the export"
        case damaged = "damaged entries"

        public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// How a picture request was sized.
    public enum SizeSource: String, CaseIterable, Sendable, Comparable {
        /// The picture's own header, read from its body.
        case header
        /// Its length, with the pixels a URL names where the length makes them plausible.
        case url
        /// Its length alone, at the format's typical bytes per pixel.
        case length
        /// An earlier entry of the same URL that was sized.
        case sameURL = "same URL"
        /// Nothing told it: 0×0, priced only with --assume-pixels.
        case unknown

        public static func < (a: Self, b: Self) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }
    }

    /// One entry as the importer sees it, before it is numbered and placed in a session.
    /// Sendable: the date field is Foundation's immutable parsed JSON, read on the thread that
    /// parsed it and after.
    struct ParsedEntry: @unchecked Sendable {
        enum Kind {
            case image(ImageRequestEvent, SizeSource)
            case api(url: String)
            /// A 304: the same response as the last one for the URL.
            case revalidation(url: String, fetchMilliseconds: Int?, parts: ImageRequestEvent.FetchParts)
            case skipped(SkipReason)
        }
        var kind: Kind
        var start = 0.0
        var date: JSONNode?
        var page: String?
        /// What was wrong with the entry, when part of it was damaged (or all of it, `.damaged`).
        var damage: String?
    }

    /// Reads one entry: what it is, its start and page, and its picture's size from the best
    /// evidence it holds (`PictureEvidence`). A damaged entry is skipped, or sized from its
    /// lengths when only its body is damaged, or kept without its timings' parts when only those
    /// are, with the damage named; `strict` refuses it.
    enum EntryReader {
        @Sendable static func parse(_ entry: JSONNode, strict: Bool) throws(ImportError) -> ParsedEntry {
            do {
                return try read(entry, strict: strict)
            } catch where !strict {
                return ParsedEntry(kind: .skipped(.damaged), damage: error.description)
            }
        }

        private static func read(_ entry: JSONNode, strict: Bool) throws(ImportError) -> ParsedEntry {
            let date = try entry.required("startedDateTime")
            let start = try HARImporter.startTime(date)
            let page = try entry.optional("pageref").flatMap { (node) throws(ImportError) -> String? in try? node.string() }
            var parsed = ParsedEntry(kind: .skipped(.damaged), start: start, date: date, page: page)
            let request = try entry.required("request")
            let response = try entry.required("response")
            let url = URLCredentials.removed(from: try request.required("url").string())
            let status = try response.required("status").int()
            let content = try response.required("content")
            let mime = try content.optional("mimeType")?.string().lowercased() ?? ""
            let milliseconds = try fetchMilliseconds(entry)
            // Parts are extra detail: damaged ones are named and left out, and the picture is kept.
            var parts = ImageRequestEvent.FetchParts()
            do { parts = try fetchParts(entry) } catch where !strict { parsed.damage = error.description }
            func skipped(_ reason: SkipReason) -> ParsedEntry {
                parsed.kind = .skipped(reason)
                return parsed
            }
            if url.lowercased().hasPrefix("data:") { return skipped(.dataURL) }
            switch status {
            case 204: return skipped(.noContent)
            case 304:
                let picture = mime.isEmpty || mime.hasPrefix("image/") || mime.hasPrefix("application/json") || mime.hasSuffix("+json")
                guard picture else { return skipped(.notAPictureType) }
                parsed.kind = .revalidation(url: url, fetchMilliseconds: milliseconds, parts: parts)
                return parsed
            case 300..<400: return skipped(.redirect)
            case 200..<300: break
            default: return skipped(.failed)
            }
            if mime.hasPrefix("application/json") || mime.hasSuffix("+json") {
                parsed.kind = .api(url: url)
                return parsed
            }
            guard mime.hasPrefix("image/"), let format = HARImporter.traceFormat(mime: mime) else { return skipped(.notAPictureType) }
            let length = try HARImporter.length(of: response, content: content)
            var body: Data?
            do { body = try HARImporter.body(content) } catch {
                if strict { throw error }
                parsed.damage = error.description
            }
            if let found = body, found.isEmpty {
                if length == nil { return skipped(.emptyBody) }
                body = nil  // an empty text beside a length: the export left the body out
            }
            var image = ImageRequestEvent(
                id: 0, url: url, content: 0, bytes: length ?? 0, width: 0, height: 0, format: format, boxWidth: 0, boxHeight: 0,
                scale: 1, priority: .visible, fetchMilliseconds: milliseconds)
            image.fetchParts = parts
            var source = SizeSource.unknown
            if let body {
                switch PictureEvidence.read(body, format: format) {
                case .picture(let width, let height, let read):
                    (image.width, image.height, image.format, image.bytes) = (width, height, read, body.count)
                    image.content = HARImporter.contentID(body)
                    source = .header
                case .notAPicture(let what):
                    parsed.damage = "\(entry.path): an \(mime) response whose body is \(what)"
                    return skipped(.notAPicture)
                case .unreadable:
                    if strict { throw entry.fail("the body is not a picture that can be read (cut, or redacted)") }
                    parsed.damage = parsed.damage ?? "\(entry.path).response.content.text: not a picture that can be read (cut, or redacted); sized from its lengths"
                }
            }
            if source == .unknown {
                if let named = PictureEvidence.urlSize(url, bytes: image.bytes, format: format) {
                    (image.width, image.height, image.sizeEstimate, source) = (named.width, named.height, .url, .url)
                } else if let square = ImageSizeEstimate.fromLength(image.bytes, format: format) {
                    (image.width, image.height, image.sizeEstimate, source) = (square.width, square.height, .contentLength, .length)
                }
                image.content = HARImporter.contentID(Data(URLNormalizer.resourceIdentity.normalize(url).utf8))
            }
            (image.boxWidth, image.boxHeight) = (image.width, image.height)
            parsed.kind = .image(image, source)
            return parsed
        }

        /// HAR's total time; -1 means unknown. Anything not a plausible duration is an error,
        /// never a trap on the conversion (found by fuzzing).
        private static func fetchMilliseconds(_ entry: JSONNode) throws(ImportError) -> Int? {
            try entry.optional("time").flatMap(duration)
        }

        /// A duration in milliseconds, nil for HAR's -1 (unknown, or not part of this fetch).
        private static func duration(_ node: JSONNode) throws(ImportError) -> Int? {
            let value = try node.double()
            guard value.isFinite, value < 1e12, value >= 0 || value == -1 else {
                throw node.fail("not a duration in milliseconds (or -1 for unknown): \(value)")
            }
            return value < 0 ? nil : Int(value.rounded())
        }

        /// HAR's `timings`, the parts of the total (`ssl` is inside `connect`, as HAR 1.2 has it).
        private static func fetchParts(_ entry: JSONNode) throws(ImportError) -> ImageRequestEvent.FetchParts {
            guard let timings = try entry.optional("timings") else { return .init() }
            func part(_ name: String) throws(ImportError) -> Int? { try timings.optional(name).flatMap(duration) }
            return .init(
                blocked: try part("blocked"), dns: try part("dns"), connect: try part("connect"), send: try part("send"),
                wait: try part("wait"), receive: try part("receive"))
        }
    }

    /// The response's length from the first field that knows it, in this order: `content.size`
    /// above 0 (WebPageTest and chrome-har write 0 for unknown), `bodySize` above 0, the
    /// `Content-Length` header, Chrome's `_transferSize` less `headersSize`.
    static func length(of response: JSONNode, content: JSONNode) throws(ImportError) -> Int? {
        if let size = try content.optional("size").map(byteCount), size > 0 { return size }
        if let size = try response.optional("bodySize").map(byteCount), size > 0 { return size }
        if let size = try contentLength(response), size > 0 { return size }
        if let transfer = try response.optional("_transferSize").map(byteCount), let headers = try response.optional("headersSize").map(byteCount),
           transfer > 0, headers >= 0, transfer > headers {
            return transfer - headers
        }
        return nil
    }

    /// A HAR size: bytes, or -1 for unknown (HAR 1.2's convention); anything else is refused.
    static func byteCount(_ node: JSONNode) throws(ImportError) -> Int {
        let value = try node.int()
        guard value >= -1 else { throw node.fail("not a size in bytes (or -1 for unknown): \(value)") }
        guard value <= ImageRequestEvent.maximumBytes else {
            throw node.fail("\(value) bytes is more than the largest response taken, \(ImageRequestEvent.maximumBytes) (1 TiB)")
        }
        return value
    }

    /// The response's `Content-Length` header, when it has one.
    static func contentLength(_ response: JSONNode) throws(ImportError) -> Int? {
        guard let headers = try response.optional("headers")?.array() else { return nil }
        for header in headers where try header.optional("name")?.string().lowercased() == "content-length" {
            guard let value = try header.optional("value").map({ (node) throws(ImportError) in try node.string() }),
                  let length = Int(value.trimmingCharacters(in: .whitespaces)), length >= 0 else { continue }
            return min(length, ImageRequestEvent.maximumBytes)
        }
        return nil
    }

    /// Milliseconds since 1970 of an ISO 8601 date with optional fractional seconds.
    static func startTime(_ node: JSONNode) throws(ImportError) -> Double {
        let text = try node.string()
        switch ISO8601Time.parse(text) {
        case .success(let milliseconds): return milliseconds
        case .failure(let problem): throw node.fail("\"\(text.prefix(64))\": \(problem.reason)")
        }
    }

    /// The response body when the HAR holds it (plain text or base64).
    static func body(_ content: JSONNode) throws(ImportError) -> Data? {
        guard let text = try content.optional("text")?.string() else { return nil }
        if try content.optional("encoding")?.string() == "base64" {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw JSONNode(value: text, path: content.path + ".text", file: content.file).fail("not valid base64")
            }
            return data
        }
        return Data(text.utf8)
    }

    static func contentID(_ bytes: Data) -> UInt64 {
        SHA256.hash(data: bytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// The trace's name for an image content type (`image/svg+xml` → svg), or nil for one it lacks.
    static func traceFormat(mime: String) -> String? {
        let subtype = mime.dropFirst("image/".count).prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        let names = ["jpg": "jpeg", "pjpeg": "jpeg", "x-png": "png", "svg+xml": "svg", "x-icon": "ico", "vnd.microsoft.icon": "ico",
                     "tif": "tiff", "x-ms-bmp": "bmp", "heif": "heic"]
        let name = names[subtype] ?? subtype
        return TraceFormatNames.imageFormats.contains(name) ? name : nil
    }

}
