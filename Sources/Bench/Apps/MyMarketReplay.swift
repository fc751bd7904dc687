import Foundation
import HTTPImageLoading
import ImagePipeline
import OriginServer
import CacheSimulation

/// Drives `MyMarketImageCache` with a recorded workload as the app's cells would, up to
/// `inFlight` downloads at once: a memory warning empties its `NSCache`, a relaunch starts a
/// new one (each once the downloads in flight have answered), a request the app cancelled
/// calls `cancel(url:)` before its download answers, an offline request's download fails.
/// Says where each request was answered, in the simulator's terms, and the order the port took
/// its decisions in, so the live port and `FetchCoalescing.myMarketAsShipped` can be compared
/// request by request at any concurrency.
public enum MyMarketReplay {
    public static func answers(
        _ workload: RecordedWorkload, fetcher: any ImageFetcher, inFlight: Int = 1
    ) async -> (answers: [CacheSimulator.Answer], order: ObservedOrder) {
        await answers(workload, fetcher: fetcher, inFlight: inFlight) { $0.count }
    }

    /// The same, making each image with `decode` (nil: not an image).
    public static func answers<Image: Sendable>(
        _ workload: RecordedWorkload, fetcher: any ImageFetcher, inFlight: Int = 1,
        decode: @escaping @Sendable (Data) -> Image?
    ) async -> (answers: [CacheSimulator.Answer], order: ObservedOrder) {
        let network = AppReplayNetwork(fetcher, workload)
        let recorder = ObservedOrderRecorder()
        func newCache() -> MyMarketImageCache<Image> { MyMarketImageCache(fetcher: network, recorder: recorder, decode: decode) }
        var cache = newCache()
        let answers = SharedLocked([CacheSimulator.Answer](repeating: .unanswered, count: workload.requests.count))
        let slots = AsyncSemaphore(permits: max(inFlight, 1))
        var nextEvent = 0
        await withDiscardingTaskGroup { group in
            for (index, request) in workload.requests.enumerated() {
                if nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                    _ = try? await slots.withAllPermits {
                        while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                            recorder.event(nextEvent)
                            switch workload.events[nextEvent].kind {
                            case .memoryWarning: cache.systemEmptiesCache()
                            case .relaunch, .newDevice: cache = newCache()
                            case .invalidate: break  // the app never invalidates
                            }
                            nextEvent += 1
                        }
                    }
                }
                let url = workload.urls[Int(request.url)]
                let cancels = request.cancelledAfter != nil
                try? await slots.acquire()
                let callback = Callback()
                let decision = AppReplayNetwork.$request.withValue(index) {
                    cache.load(url: url, request: index, completion: { callback.deliver($0 != nil) })
                }
                switch decision {
                case nil:
                    answers.withLock { $0[index] = .memory }
                    slots.release()
                case .drop?:
                    answers.withLock { $0[index] = .unanswered }  // nobody will call back
                    slots.release()
                case .start?:
                    if cancels { cache.cancel(url: url, request: index) }  // the cell is reused before the download answers
                    group.addTask {
                        // Without a picture: cancelled, or offline (any other failure shows nothing too).
                        let answer: CacheSimulator.Answer = await callback.value() ? .origin : cancels ? .cancelled : .offline
                        answers.withLock { $0[index] = answer }
                        slots.release()
                    }
                }
            }
        }
        return (answers.withLock { $0 }, recorder.order)
    }

    /// The port live, on the loopback origin with libvips decoding whole images, `inFlight` downloads
    /// at once (the preset's loads in flight unless told), beside `preset`'s simulation run in the
    /// order the port took its decisions.
    public static func live(
        _ preset: AppPreset, _ workload: RecordedWorkload, store: String, inFlight: Int? = nil, progress: ProgressLine = ProgressLine()
    ) async throws -> AppLiveCheck {
        let inFlight = inFlight ?? preset.loadsInFlight
        let thumbnailer = Thumbnailer()
        let whole = ThumbnailRequest(width: 1 << 16, height: 1 << 16)
        let (live, seconds) = try await LiveReplay.onLoopback(workload, store: store, label: "mymarket", progress: progress) { loopback in
            await answers(workload, fetcher: loopback, inFlight: inFlight) { try? thumbnailer.thumbnail($0, fitting: whole) }
        }
        return AppLiveCheck(preset: preset, workload: workload, live: live.answers, order: live.order, inFlight: inFlight, seconds: seconds)
    }

    /// A completion's first call, awaited.
    final class Callback: Sendable {
        private let state = Locked<(value: Bool?, waiter: CheckedContinuation<Bool, Never>?)>((nil, nil))

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
