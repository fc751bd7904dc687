import ImagePipeline

/// The bench's own `MemoryCache`, with any policy (built in or `.custom`), behind
/// `ReplayableCache`: what the live pipeline's memory tier does, to set beside a
/// cache of your own. A warning applies `pressure`'s reaction; a restart makes a
/// new cache, as a new process would.
public struct ReplayableMemoryCache: ReplayableCache {
    public let configuration: MemoryCache<String, Int>.Configuration
    public let pressure: MemoryPressurePolicy
    public private(set) var cache: MemoryCache<String, Int>

    public init(_ configuration: MemoryCache<String, Int>.Configuration, pressure: MemoryPressurePolicy = .purgeAll) {
        self.configuration = configuration
        self.pressure = pressure
        cache = MemoryCache(configuration)
    }

    public func lookup(_ key: String) -> Bool { cache.value(for: key) != nil }

    public func store(_ key: String, cost: Int, downloadedBytes: Int) -> Bool {
        cache.insert(cost, for: key, cost: cost, missCost: downloadedBytes)
    }

    public func memoryWarning(_ level: MemoryPressureLevel) { cache.respond(to: pressure.reaction(to: level)) }
    public mutating func removeAll() { cache = MemoryCache(configuration) }
}
