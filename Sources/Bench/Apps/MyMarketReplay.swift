import Foundation
import Synchronization
import HTTPImageLoading
import ImagePipeline
import OriginServer
import CacheSimulation

/// Drives `MyMarketImageCache` with a recorded workload one request at a
/// time, as the app's cells would: a memory warning empties its `NSCache`, a
/// relaunch starts a new one, a request the app cancelled calls
/// `cancel(url:)` before its download answers, an offline request's download
/// fails. Says where each request was answered, in the simulator's terms, so
/// the live port and `FetchCoalescing.myMarketAsShipped` can be compared request by request.
public enum MyMarketReplay {
    public static func answers(_ workload: RecordedWorkload, fetcher: any ImageFetcher) async -> [CacheSimulator.Answer] {
        await answers(workload, fetcher: fetcher) { $0.count }
    }

    /// The same, making each image with `decode` (nil: not an image).
    public static func answers<Image: Sendable>(
        _ workload: RecordedWorkload, fetcher: any ImageFetcher, decode: @escaping @Sendable (Data) -> Image?
    ) async -> [CacheSimulator.Answer] {
        let network = Network(fetcher)
        func newCache() -> MyMarketImageCache<Image> { MyMarketImageCache(fetcher: network, decode: decode) }
        var cache = newCache()
        var answers: [CacheSimulator.Answer] = []
        var nextEvent = 0
        for (index, request) in workload.requests.enumerated() {
            while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                switch workload.events[nextEvent].kind {
                case .memoryWarning: cache.systemEmptiesCache()
                case .relaunch, .newSession: cache = newCache()
                case .invalidate: break  // the app never invalidates
                }
                nextEvent += 1
            }
            let url = workload.urls[Int(request.url)]
            let cancels = request.cancelledAfter != nil
            network.offline.store(request.offline, ordering: .relaxed)
            network.holdsUntilCancelled.store(cancels, ordering: .relaxed)
            let callback = Callback()
            let answer: CacheSimulator.Answer
            switch cache.load(url: url, completion: { callback.deliver($0 != nil) }) {
            case nil:
                answer = .memory
            case .drop?:
                answer = .unanswered  // nobody will call back
            case .start?:
                if cancels { cache.cancel(url: url) }  // the cell is reused before the download answers
                // Without a picture: cancelled, or offline (any other failure shows nothing too).
                answer = await callback.value() ? .origin : cancels ? .cancelled : .offline
            }
            answers.append(answer)
        }
        return answers
    }

    /// The port live, on the loopback origin with libvips decoding whole images, beside the simulator's model.
    public static func live(_ workload: RecordedWorkload, store: String, progress: ProgressLine = ProgressLine()) async throws -> MyMarketLiveCheck {
        let (live, seconds) = try await LiveReplay.withLoopbackOrigin(store: store) { origin, http in
            let (urls, images) = LiveReplay.originURLs(of: workload, on: origin)
            try await origin.prepare(images) { done in
                if done % 16 == 0 { progress.update("mymarket live: origin images \(done)/\(images.count)") }
            }
            progress.finish()
            let loopback = Loopback(http, Dictionary(uniqueKeysWithValues: zip(workload.urls, urls)))
            let thumbnailer = Thumbnailer()
            let whole = ThumbnailRequest(width: 1 << 16, height: 1 << 16)
            let start = ContinuousClock.now
            let live = await answers(workload, fetcher: loopback) { try? thumbnailer.thumbnail($0, fitting: whole) }
            return (live, (ContinuousClock.now - start).seconds)
        }
        var configuration = AppPreset.myMarket.configuration
        configuration.inFlight = 0
        let simulated = CacheSimulator.answers(AppPreset.myMarket.trace(of: workload), configuration).answers
        return MyMarketLiveCheck(trace: workload.name, sessions: workload.sessions, live: live, simulated: simulated, seconds: seconds)
    }

    /// The workload's URLs fetched from their loopback copies.
    final class Loopback: ImageFetcher {
        let base: any ImageFetcher
        let urls: [String: String]

        init(_ base: any ImageFetcher, _ urls: [String: String]) {
            self.base = base
            self.urls = urls
        }

        func fetch(_ url: String) async throws -> FetchedImage { try await base.fetch(urls[url] ?? url) }
    }

    /// The fetcher behind a switch for offline spells, holding a download the
    /// app will cancel until it is cancelled.
    final class Network: ImageFetcher {
        let base: any ImageFetcher
        let offline = Atomic(false)
        let holdsUntilCancelled = Atomic(false)

        init(_ base: any ImageFetcher) { self.base = base }

        func fetch(_ url: String) async throws -> FetchedImage {
            if holdsUntilCancelled.load(ordering: .relaxed) {
                while !Task.isCancelled { await Task.yield() }
            }
            try Task.checkCancellation()
            if offline.load(ordering: .relaxed) { throw FetchError.connection("offline") }
            return try await base.fetch(url)
        }
    }

    /// A completion's first call, awaited.
    final class Callback: Sendable {
        private let state = Mutex<(value: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

        func deliver(_ value: Bool) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.value == nil else { return nil }
                state.value = value
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: value)
        }

        func value() async -> Bool {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool? in
                    if state.value == nil { state.waiter = continuation }
                    return state.value
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// My Market's port run live beside the simulator's model of it, request by request.
public struct MyMarketLiveCheck: Codable, Sendable {
    public var trace: String
    public var sessions: Int
    public var requests: Int
    /// Requests by where they were answered ("memory", "origin", "unanswered", …), live and simulated.
    public var live: [String: Int]
    public var simulated: [String: Int]
    /// Requests answered differently.
    public var differingRequests: Int
    public var seconds: Double

    init(trace: String, sessions: Int, live: [CacheSimulator.Answer], simulated: [CacheSimulator.Answer], seconds: Double) {
        func counts(_ answers: [CacheSimulator.Answer]) -> [String: Int] {
            Dictionary(answers.map { ("\($0)", 1) }, uniquingKeysWith: +)
        }
        self.trace = trace
        self.sessions = sessions
        requests = live.count
        self.live = counts(live)
        self.simulated = counts(simulated)
        differingRequests = zip(live, simulated).filter { $0 != $1 }.count + abs(live.count - simulated.count)
        self.seconds = seconds
    }
}
