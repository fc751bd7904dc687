import Foundation
import ImagePipeline
import CacheSimulation

/// My Market's shared `ImageCache` (APPS.md) ported as written,
/// defects and all: the baseline the bench holds the library's coalescer
/// against, never something to adopt. Its decisions are
/// `MyMarketCoalescerModel`'s, which the simulator follows too. Defects kept:
///
/// 1. A second caller for a URL in flight is dropped: its completion is never called.
/// 2. The waiting entry is never removed after success: once the image has
///    left the memory cache, every later load of the URL is dropped.
/// 3. On an error only the caller that started the download hears back
///    (nil), and the entry stays, so the URL is never fetched again either.
/// 4. `cancel(url:)` cancels the download for every waiter.
/// 5. The memory cache's cost counts encoded bytes, not decoded pixels, and has no limit.
///
/// One thing is not kept: the original reads and writes its dictionaries from
/// URLSession's queue and the caller's thread unguarded, a data race; here
/// they sit behind a lock. Completions run on the download's task, not the main queue.
public final class MyMarketImageCache<Image: Sendable>: Sendable {
    public typealias Completion = @Sendable (Image?) -> Void

    private struct State {
        var model = MyMarketCoalescerModel<String>()
        /// `waitingRespoinseClosure`: the completions per URL (only ever the first caller's).
        var waiting: [String: [Completion]] = [:]
        /// `dataTasks`
        var tasks: [String: Task<Void, Never>] = [:]
    }

    private let state = SharedLocked(State())
    /// `NSCache<NSURL, UIImage>` with neither limit.
    private let images = MemoryCache<String, Image>(.init(limits: CacheLimits(costLimit: .max, maxEntryFraction: 1), policy: .nsCache))
    private let fetcher: any ImageFetcher
    private let decode: @Sendable (Data) -> Image?
    /// Hears the decisions of loads given a number, under the lock that orders each (the
    /// bench's replay; the original has nothing of it).
    private let recorder: (any DecisionRecorder)?

    /// `decode` makes the image from the downloaded bytes (`UIImage(data:)`), nil when it cannot.
    public init(fetcher: any ImageFetcher, recorder: (any DecisionRecorder)? = nil, decode: @escaping @Sendable (Data) -> Image?) {
        self.fetcher = fetcher
        self.recorder = recorder
        self.decode = decode
    }

    /// Calls back with the image, or with nil after an error, or never (see the defects). Returns what
    /// the coalescer decided (nil for a memory hit), which the original does not say, for the bench's replay.
    @discardableResult
    public func load(url: String, completion: @escaping Completion) -> MyMarketCoalescerModel<String>.Load? {
        load(url: url, request: nil, completion: completion)
    }

    /// The same, reporting each decision for `request` to the recorder: the memory lookup and the
    /// coalescer's choice (a flight started, or a load dropped) under their locks, the download,
    /// the store in memory, and a failure the trace cannot know of.
    @discardableResult
    func load(url: String, request: Int?, completion: @escaping Completion) -> MyMarketCoalescerModel<String>.Load? {
        let decisions = RequestDecisions(recorder, request)
        if let image = images.value(for: url, whileLocked: { _ in decisions.record(.memoryLookup) }) {
            completion(image)
            return nil
        }
        let decision = state.withLock { state in
            let decision = state.model.load(url)
            if decision == .start { state.waiting[url] = [completion] }
            decisions.record(.flight)
            if decision == .start { decisions.record(.download) }
            return decision
        }
        guard decision == .start else { return decision }  // defects 1, 2 and 3: nobody will call back
        let task = Task { [fetcher, decode, images, state] in
            guard let fetched = try? await fetcher.fetch(url), let image = decode(fetched.data),
                  let blocks = state.withLock({ $0.waiting[url] }) else {
                if !Task.isCancelled { decisions.record(.failed) }
                completion(nil)  // defect 3: only this caller; the entry stays
                return
            }
            _ = images.insert(image, for: url, cost: fetched.data.count) { decisions.record(.memoryStored) }  // defect 5
            for block in blocks { block(image) }  // defect 2: the entry stays
        }
        state.withLock { $0.tasks[url] = task }
        return decision
    }

    /// Defect 4: the download stops for everyone waiting on it.
    public func cancel(url: String) { cancel(url: url, request: nil) }

    /// The same, reporting that the coalescer forgot the URL's entry (`flightEnded`) for `request`.
    func cancel(url: String, request: Int?) {
        let task = state.withLock { state in
            state.model.cancel(url)
            state.waiting[url] = nil
            RequestDecisions(recorder, request).record(.flightEnded)
            return state.tasks.removeValue(forKey: url)
        }
        task?.cancel()
    }

    /// What iOS does to an `NSCache` under memory pressure: empties it. The waiting entries stay.
    public func systemEmptiesCache() { images.removeAll() }
}
