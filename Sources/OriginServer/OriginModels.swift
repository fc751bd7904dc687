import Foundation
import ImagePipeline

/// What image a URL names: the origin synthesises exactly this, always the same bytes.
public struct ImageDescriptor: Hashable, Sendable, Codable {
    /// Ground truth: which picture it is.
    public var contentID: UInt64
    public var width: Int
    public var height: Int
    public var format: ImageFormat
    public var quality: Int

    public init(contentID: UInt64, width: Int, height: Int, format: ImageFormat, quality: Int = 82) {
        self.contentID = contentID
        self.width = width
        self.height = height
        self.format = format
        self.quality = quality
    }

    var encodedFormat: EncodedFormat { EncodedFormat(format, quality: quality) }

    var storeKey: String { "\(contentID)-\(width)x\(height)-\(quality).\(format.rawValue)" }

    var contentType: String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .gif: "image/gif"
        case .heic: "image/heic"
        case .avif: "image/avif"
        }
    }
}

/// Ways a response can go wrong, chosen per request or per run.
public enum OriginFault: String, Sendable, CaseIterable, Codable {
    case notFound, serverError, unavailable
    /// Status 200 with an HTML error page.
    case htmlBody
    /// The image bytes labelled `text/plain`.
    case wrongContentType
    /// Content-Length promises the whole image; half arrives, then the connection closes.
    case truncated
    /// Chunked body, cut mid-stream by closing the connection.
    case reset
    /// The body trickles in small pieces with pauses.
    case slowDrip
    /// No response until long after any sane client timeout.
    case stall
    /// A PNG whose header claims 50000×50000 pixels.
    case bomb
}

/// Response latency per host: log-normal around a median, deterministic per run.
public struct LatencyModel: Sendable {
    public struct Distribution: Sendable, Hashable {
        public var medianMilliseconds: Double
        /// Spread of the log-normal; 0 gives a constant.
        public var sigma: Double

        public init(medianMilliseconds: Double, sigma: Double = 0.5) {
            self.medianMilliseconds = medianMilliseconds
            self.sigma = sigma
        }
    }

    public var hosts: [String: Distribution]
    public var otherHosts: Distribution?

    public init(hosts: [String: Distribution] = [:], otherHosts: Distribution? = nil) {
        self.hosts = hosts
        self.otherHosts = otherHosts
    }

    public static let none = LatencyModel()

    /// The delay for the `sequence`-th request to `host`.
    func delay(host: String, sequence: UInt64, seed: UInt64) -> Duration {
        guard let distribution = hosts[host] ?? otherHosts, distribution.medianMilliseconds > 0 else { return .zero }
        // Box–Muller on two uniforms derived from (seed, sequence).
        var state = seed ^ (sequence &* 0x9E37_79B9_7F4A_7C15)
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) + 0.5) * 0x1.0p-53
        }
        let normal = (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
        let milliseconds = distribution.medianMilliseconds * exp(distribution.sigma * normal)
        return .microseconds(Int64(milliseconds * 1000))
    }
}
