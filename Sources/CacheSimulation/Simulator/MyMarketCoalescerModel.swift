/// My Market's coalescing decisions exactly as its `ImageCache` makes them
/// (APPS.md, "My Market"): the one model the simulator's
/// `FetchCoalescing.myMarketAsShipped` and the bench's live port
/// (`MyMarketImageCache`) both follow. A measured baseline, kept out of
/// `ImagePipeline` so that nobody adopts it.
///
/// `load` finds a URL's entry in `waitingRespoinseClosure` and returns
/// without calling back, or makes the entry and starts a download. Nothing
/// removes the entry but `cancel(url:)`: not a success, not an error.
public struct MyMarketCoalescerModel<URL: Hashable & Sendable>: Sendable {
    private var waiting: Set<URL> = []

    public init() {}

    /// What a load that missed the memory cache does.
    public enum Load: Sendable, Equatable {
        /// Makes the URL's waiting entry and starts its download.
        case start
        /// Returns at once; its completion is never called.
        case drop
    }

    public mutating func load(_ url: URL) -> Load {
        waiting.insert(url).inserted ? .start : .drop
    }

    /// `cancel(url:)`: cancels the download, whoever waits on it, and forgets the entry.
    public mutating func cancel(_ url: URL) { waiting.remove(url) }

    /// A new process: the dictionaries start empty.
    public mutating func reset() { waiting.removeAll() }
}
