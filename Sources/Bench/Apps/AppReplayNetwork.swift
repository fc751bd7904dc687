import Foundation
import Synchronization
import ImagePipeline
import CacheSimulation

/// The workload's URLs fetched from their loopback copies.
final class LoopbackFetcher: ImageFetcher {
    let base: any ImageFetcher
    let urls: [String: String]

    init(_ base: any ImageFetcher, _ urls: [String: String]) {
        self.base = base
        self.urls = urls
    }

    func fetch(_ url: String) async throws -> FetchedImage { try await base.fetch(urls[url] ?? url) }
}

/// The fetcher behind a switch for offline spells (a download fails at once,
/// before any cell is reused), holding a download the app will cancel until it is cancelled.
final class AppReplayNetwork: ImageFetcher {
    let base: any ImageFetcher
    let offline = Atomic(false)
    let holdsUntilCancelled = Atomic(false)

    init(_ base: any ImageFetcher) { self.base = base }

    func fetch(_ url: String) async throws -> FetchedImage {
        if offline.load(ordering: .relaxed) { throw FetchError.connection("offline") }
        if holdsUntilCancelled.load(ordering: .relaxed) {
            while !Task.isCancelled { await Task.yield() }
        }
        try Task.checkCancellation()
        return try await base.fetch(url)
    }
}

extension LiveReplay {
    /// `workload`'s pictures made on a loopback origin, and a fetcher serving each of its URLs
    /// from there, for `body`; with the seconds `body` took.
    static func onLoopback<Result: Sendable>(
        _ workload: RecordedWorkload, store: String, label: String, progress: ProgressLine,
        _ body: (any ImageFetcher) async throws -> Result
    ) async throws -> (result: Result, seconds: Double) {
        try await withLoopbackOrigin(store: store) { origin, http in
            let (urls, images) = originURLs(of: workload, on: origin)
            try await origin.prepare(images) { done in
                if done % 16 == 0 { progress.update("\(label) live: origin images \(done)/\(images.count)") }
            }
            progress.finish()
            let start = ContinuousClock.now
            let result = try await body(LoopbackFetcher(http, Dictionary(uniqueKeysWithValues: zip(workload.urls, urls))))
            return (result, (ContinuousClock.now - start).seconds)
        }
    }
}
