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

/// The fetcher behind My Market's replay: whether the load a download belongs to was made
/// offline (the download fails at once) or will be cancelled by the app (the download is held
/// until the cancel reaches it, so the cancel always beats the origin). The load's number comes
/// with the download's task (`request`, a task-local the replay sets around the load), so loads
/// in flight together never see each other's.
final class AppReplayNetwork: ImageFetcher {
    /// The replayed request whose load is running.
    @TaskLocal static var request: Int?

    let base: any ImageFetcher
    private let loads: [(offline: Bool, cancelled: Bool)]

    init(_ base: any ImageFetcher, _ workload: RecordedWorkload) {
        self.base = base
        loads = workload.requests.map { ($0.offline, $0.cancelledAfter != nil) }
    }

    func fetch(_ url: String) async throws -> FetchedImage {
        if let request = Self.request, loads.indices.contains(request) {
            if loads[request].offline { throw FetchError.connection("offline") }
            if loads[request].cancelled {
                // Held until the app's cancel reaches this task (the replay sends it as the load
                // returns): a sleep ends at once when its task is cancelled. Bounded, so a cancel
                // that never came fails the download rather than hanging the replay.
                try? await Task.sleep(for: .seconds(600))
                try Task.checkCancellation()
                throw FetchError.connection("the app's cancel never came")
            }
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
