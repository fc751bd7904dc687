import HTTPImageLoading
import ImagePipeline

/// The fetcher a live replay gives its pipelines: HTTP to the loopback origin,
/// plus two things a recorded app did that the network alone cannot replay.
///
/// - A request made while the device was offline fails its download at once.
/// - A request the app cancelled is cancelled the moment its download starts
///   (the simulator's model: a cancel beats the origin, never memory or disk).
///   If another request shares the download, it goes on for that one.
///
/// Which of these applies travels in the request's fetch URL (`offline:` or
/// `cancel:<position>:` before the loopback URL), set by the replay.
final class ReplayFetcher: ImageFetcher {
    let http: HTTPImageFetcher
    /// The replay's requests in flight that the app cancelled, by position.
    let cancellable = SharedLocked<[Int: Task<ImageResponse, any Error>]>([:])
    /// Downloads refused because the device was offline.
    let offlineRefusals = SharedLocked(0)

    init(_ http: HTTPImageFetcher) { self.http = http }

    static func offline(_ url: String) -> String { "offline:" + url }
    static func cancelled(_ url: String, position: Int) -> String { "cancel:\(position):" + url }

    func fetch(_ url: String) async throws -> FetchedImage {
        if url.hasPrefix("offline:") {
            offlineRefusals.withLock { $0 += 1 }
            throw FetchError.connection("offline (recorded)")
        }
        guard url.hasPrefix("cancel:") else { return try await http.fetch(url) }
        let rest = url.dropFirst("cancel:".count)
        guard let colon = rest.firstIndex(of: ":"), let position = Int(rest[..<colon]) else { throw FetchError.invalidURL(url) }
        // Cancelling runs the coalescers' handlers on this thread: when nobody
        // else waits, this download's own task is cancelled before we go on.
        cancellable.withLock { $0.removeValue(forKey: position) }?.cancel()
        try Task.checkCancellation()
        return try await http.fetch(String(rest[rest.index(after: colon)...]))
    }
}
