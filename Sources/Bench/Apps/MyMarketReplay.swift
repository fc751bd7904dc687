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
        let network = AppReplayNetwork(fetcher)
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
    public static func live(_ workload: RecordedWorkload, store: String, progress: ProgressLine = ProgressLine()) async throws -> AppLiveCheck {
        let thumbnailer = Thumbnailer()
        let whole = ThumbnailRequest(width: 1 << 16, height: 1 << 16)
        let (live, seconds) = try await LiveReplay.onLoopback(workload, store: store, label: "mymarket", progress: progress) { loopback in
            await answers(workload, fetcher: loopback) { try? thumbnailer.thumbnail($0, fitting: whole) }
        }
        return AppLiveCheck(preset: .myMarket, workload: workload, live: live, seconds: seconds)
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
