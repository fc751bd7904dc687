import Foundation
import Synchronization
import ImagePipeline
import CacheSimulation

/// Drives `MyMarketImageCache` with a recorded workload one request at a
/// time, as the app's cells would: a memory warning empties its `NSCache`, a
/// relaunch starts a new one, a request the app cancelled calls
/// `cancel(url:)` before its download answers, an offline request's download
/// fails. Says where each request was answered, in the simulator's terms, so
/// the live port and `FetchCoalescing.myMarketAsShipped` can be compared request by request.
public enum MyMarketReplay {
    public static func answers(_ workload: RecordedWorkload, fetcher: any ImageFetcher) async -> [CacheSimulator.Answer] {
        let network = Network(fetcher)
        func newCache() -> MyMarketImageCache<Int> { MyMarketImageCache(fetcher: network) { $0.count } }
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
