import Foundation

/// Where image bytes come from. `HTTPImageFetcher` (in `HTTPImageLoading`) is the
/// real one; tests of the pipeline use it too, against the loopback origin, and
/// `ScriptedFetcher` (in `PipelineTesting`) where a double is enough.
public protocol ImageFetcher: Sendable {
    func fetch(_ url: String) async throws -> FetchedImage
}

/// How long a download may wait for its response to begin, queued for one of the host's
/// connections, connecting and its round trip included, before it fails
/// (`FetchError.timedOut`). URLSession's `timeoutIntervalForRequest` counts from the same start
/// (60 s unless the app sets it); Kingfisher and SDWebImage set 15 s. The simulator's clock
/// fails a download on the same rule (`SimulationConfiguration.requestTimeout`).
public enum RequestTimeout {
    /// `HTTPImageFetcher`'s, and the simulator's unless a pipeline says otherwise.
    public static let standard: Duration = .seconds(60)
}

/// Bytes from the network, with what it took to get them.
public struct FetchedImage: Sendable {
    public let data: Data
    public let contentType: String?
    /// Time to the response head.
    public let headDuration: Duration
    /// Time to the last body byte.
    public let totalDuration: Duration

    public init(data: Data, contentType: String?, headDuration: Duration, totalDuration: Duration) {
        self.data = data
        self.contentType = contentType
        self.headDuration = headDuration
        self.totalDuration = totalDuration
    }
}

/// Why a fetch failed. Cancellation is reported as `CancellationError`.
public enum FetchError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURL(String)
    /// A status outside 200–299.
    case status(Int)
    /// The body is not labelled as an image.
    case contentType(String)
    /// The body (or its declared length) exceeds the limit.
    case bodyTooLarge(limit: Int)
    /// The connection closed before the body was complete.
    case truncated(received: Int, expected: Int?)
    case timedOut
    /// Queued for one of the host's pooled connections longer than the connect
    /// timeout: more requests in flight than `connectionsPerHost` can serve.
    case noConnectionAvailable
    case connection(String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .status(let code): "HTTP status \(code)"
        case .contentType(let type): "not an image content type: \(type)"
        case .bodyTooLarge(let limit): "body larger than \(limit) bytes"
        case .truncated(let received, let expected):
            "body cut short after \(received) bytes" + (expected.map { " of \($0)" } ?? "")
        case .timedOut: "timed out"
        case .noConnectionAvailable: "no pooled connection came free within the connect timeout"
        case .connection(let detail): "connection failed: \(detail)"
        }
    }
}
