import Foundation

/// The ground truth of one image URL, as the origin serves it right now.
public struct ImageFacts: Sendable, Equatable {
    public var content: UInt64
    public var bytes: Int
    public var width: Int
    public var height: Int
    public var format: String

    public init(content: UInt64, bytes: Int, width: Int, height: Int, format: String) {
        self.content = content
        self.bytes = bytes
        self.width = width
        self.height = height
        self.format = format
    }
}

/// What an app model needs from the world: the services' API pages and the
/// images they name. The recorder backs it with the loopback origin server.
public protocol AppEnvironment: Sendable {
    /// An API page: `path` and query as the real service has them; `clock` is
    /// minutes since the trace's epoch (feeds move on as time passes).
    func get(_ path: String, clock: Int) async throws -> Data
    /// What each URL serves now, fetched concurrently.
    func facts(for urls: [String]) async throws -> [String: ImageFacts]
    /// A write to the API (a product edit or delete).
    func send(method: String, path: String) async throws
}

/// Why recording stopped.
public enum RecordingError: Error, CustomStringConvertible, Equatable {
    case badResponse(String, reason: String)
    case missingImage(String)

    public var description: String {
        switch self {
        case .badResponse(let what, let reason): "bad API response for \(what): \(reason)"
        case .missingImage(let url): "the origin does not serve \(url)"
        }
    }
}
