/// Why bytes did not become a thumbnail. Each case names a different fix for
/// the caller: retry, report the origin, raise a limit, or give up.
public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Zero bytes.
    case empty
    /// More encoded bytes than the configured limit; nothing was decoded.
    case tooManyBytes(count: Int, limit: Int)
    /// The bytes are a text document (for example an HTML error page served with status 200).
    case notAnImage(NonImageContent)
    /// An image format this libvips build cannot (or may not) load.
    case unsupportedFormat(String)
    /// The header claims more pixels than the limit; refused before decoding.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The image ends early: a cut-off download.
    case truncated(ImageFormat, detail: String)
    /// The image is damaged in some other way.
    case corrupt(ImageFormat, detail: String)
    /// Re-encoding a thumbnail failed.
    case encodingFailed(String)
    /// libvips could not start.
    case libraryUnavailable(String)

    public var description: String {
        switch self {
        case .empty: "empty body: zero bytes"
        case .tooManyBytes(let count, let limit): "\(count) bytes exceed the limit of \(limit) bytes"
        case .notAnImage(let kind): "not an image: the body is \(kind.rawValue)"
        case .unsupportedFormat(let name): "unsupported image format: \(name)"
        case .tooManyPixels(let width, let height, let limit):
            "\(width)×\(height) pixels exceed the limit of \(limit) pixels"
        case .truncated(let format, let detail): "truncated \(format.rawValue): \(detail)"
        case .corrupt(let format, let detail): "corrupt \(format.rawValue): \(detail)"
        case .encodingFailed(let detail): "encoding failed: \(detail)"
        case .libraryUnavailable(let detail): "libvips unavailable: \(detail)"
        }
    }
}

/// What a body that is not an image looks like.
public enum NonImageContent: String, Sendable, Equatable {
    case html = "an HTML or XML document"
    case json = "a JSON document"
    case text = "plain text"
}
