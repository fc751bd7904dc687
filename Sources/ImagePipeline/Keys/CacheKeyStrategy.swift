/// How a request's URL (and processing options) become a cache key: a named,
/// comparable choice, from the bug one of the apps shipped to a normalised key.
public struct CacheKeyStrategy: Hashable, Sendable, CustomStringConvertible {
    public enum Base: String, Hashable, Sendable, CaseIterable {
        /// `url.lastPathComponent`: ArticleProject's disk file name. Many news
        /// images end in the same name, so other articles' pictures showed.
        case lastPathComponent
        /// `url.pathComponents.joined()`: their fix. Still ignores host and
        /// query, and `/a/bc.jpg` meets `/ab/c.jpg`.
        case joinedPath
        /// The URL exactly as written (surrounding whitespace trimmed).
        case absoluteString
        /// `URLNormalizer`'s canonical spelling.
        case normalized
    }

    public var base: Base
    /// Appends the thumbnail box, scale and output format, so two display sizes
    /// of one URL never share a memory entry.
    public var includesProcessing: Bool
    public var normalizer: URLNormalizer

    public init(_ base: Base, includesProcessing: Bool = false, normalizer: URLNormalizer = URLNormalizer()) {
        self.base = base
        self.includesProcessing = includesProcessing
        self.normalizer = normalizer
    }

    /// Every base, with and without processing options.
    public static let allStrategies: [CacheKeyStrategy] = Base.allCases.flatMap {
        [CacheKeyStrategy($0), CacheKeyStrategy($0, includesProcessing: true)]
    }

    /// Parses the names `description` prints: "normalized", "joinedPath+processing", …
    public init?(name: String) {
        let parts = name.split(separator: "+")
        guard let first = parts.first, let base = Base(rawValue: String(first)),
              parts.count == 1 || (parts.count == 2 && parts[1] == "processing") else { return nil }
        self.init(base, includesProcessing: parts.count == 2)
    }

    public var description: String { base.rawValue + (includesProcessing ? "+processing" : "") }

    /// The key for a URL, with the processing options appended when this
    /// strategy includes them.
    public func key(for url: String, processing: ProcessingOptions? = nil) -> String {
        withUTF8Bytes(url) { bytes in
            ByteWriter.string(capacity: capacity(for: bytes, processing)) { write(bytes, processing, to: &$0) }
        }
    }

    /// The three keys a memory miss uses, from one reading of the URL: the original's (the URL
    /// under this strategy, without processing: disk originals and downloads), the memory
    /// thumbnail's (with `processing` when this strategy includes it) and the disk thumbnail's
    /// (always with the box and `diskFormat`).
    public func keys(for url: String, processing: ProcessingOptions, diskFormat: ImageFormat)
        -> (original: String, memory: String, diskThumbnail: String) {
        let original = withoutProcessing.key(for: url)
        // A space never appears in a URL-derived key: the suffix is the one `write` appends.
        let memory = includesProcessing ? original + " " + processing.description : original
        return (original, memory, original + " " + ProcessingOptions(processing.request, format: diskFormat).description)
    }

    /// The key's UTF-8 bytes, written into a temporary buffer (on the stack for the
    /// URLs apps load) and handed to `body`: a memory hit needs no key string.
    public func withKeyBytes<Result>(for url: String, processing: ProcessingOptions? = nil,
                                     _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withUTF8Bytes(url) { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity(for: bytes, processing)) { buffer in
                var writer = ByteWriter(buffer)
                write(bytes, processing, to: &writer)
                return body(writer.written(from: 0))
            }
        }
    }

    private func capacity(for url: UnsafeBufferPointer<UInt8>, _ processing: ProcessingOptions?) -> Int {
        let suffix = includesProcessing ? processing?.description.utf8.count ?? 0 : 0
        return max(URLNormalizer.maximumLength(of: url.count) + 1 + suffix, 1)
    }

    private func write(_ bytes: UnsafeBufferPointer<UInt8>, _ processing: ProcessingOptions?, to key: inout ByteWriter) {
        let parts = URLParts(bytes)
        let start = key.count
        switch base {
        case .lastPathComponent:
            // Foundation's `lastPathComponent`: decoded; "/" for a bare root.
            if let last = parts.lastSegment(bytes) {
                key.appendDecoded(bytes, last)
            } else if parts.pathIsAbsolute(bytes) {
                key.append(UInt8(ascii: "/"))
            }
        case .joinedPath:
            // `pathComponents.joined()`: the root "/" then each decoded segment.
            if parts.pathIsAbsolute(bytes) { key.append(UInt8(ascii: "/")) }
            parts.forEachSegment(bytes) { key.appendDecoded(bytes, $0) }
        case .absoluteString:
            key.append(bytes, parts.trimmed)
        case .normalized:
            normalizer.append(parts, of: bytes, to: &key)
        }
        // Keys compare as bytes (an app's NSString keys compare literally), whatever holds them.
        if base != .normalized { key.escapeNonASCII(from: start) }
        if includesProcessing, let processing {
            // A space never appears in a URL-derived key (it would be
            // encoded), so the suffix cannot be confused with a URL's part.
            key.append(UInt8(ascii: " "))
            key.append(utf8: processing.description)
        }
    }

    /// Whether a raw key could serve as a file name on common file systems
    /// (at most 255 bytes, no "/" and no NUL). The long NewsAPI URLs cannot.
    public static func isUsableAsFileName(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 255 && !key.utf8.contains(UInt8(ascii: "/")) && !key.utf8.contains(0)
            && key != "." && key != ".."
    }
}

/// What is done to an image before it is cached: the box and the output format.
public struct ProcessingOptions: Hashable, Sendable, CustomStringConvertible {
    public let request: ThumbnailRequest
    /// The re-encoded format for a disk tier of thumbnails; nil for decoded only.
    public let format: ImageFormat?
    /// Built once: keys append it on every request.
    public let description: String

    public init(_ request: ThumbnailRequest, format: ImageFormat? = nil) {
        self.request = request
        self.format = format
        var text = "\(request.width)x\(request.height)@\(request.scale)x"
        if request.allowsUpscaling { text += ",up" }
        if let format { text += "," + format.rawValue }
        description = text
    }
}

extension CacheKeyStrategy {
    public var withoutProcessing: CacheKeyStrategy { CacheKeyStrategy(base, includesProcessing: false, normalizer: normalizer) }
    public var withProcessing: CacheKeyStrategy { CacheKeyStrategy(base, includesProcessing: true, normalizer: normalizer) }
}
