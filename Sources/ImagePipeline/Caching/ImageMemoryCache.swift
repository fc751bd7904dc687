/// The memory tier for decoded images: a `MemoryCache` whose cost is each
/// image's decoded pixel bytes, the memory it really holds (the apps counted
/// encoded bytes, which understates it ten-fold or more).
public struct ImageMemoryCache<Key: Hashable & Sendable & CacheFingerprintable>: Sendable {
    private let storage: MemoryCache<Key, DecodedImage>

    public init(_ configuration: MemoryCache<Key, DecodedImage>.Configuration) {
        storage = MemoryCache(configuration)
    }

    public func image(for key: Key) -> DecodedImage? { storage.value(for: key) }

    /// Stores a thumbnail at its decoded cost; losing it costs the bytes it
    /// was decoded from (what a cost-aware policy weighs).
    /// `whileLocked` runs under the cache's lock once it is in (`MemoryCache.insert`).
    @discardableResult
    public func insert(_ image: DecodedImage, for key: Key, whileLocked: @Sendable () -> Void = {}) -> Bool {
        storage.insert(image, for: key, cost: image.cost, missCost: image.source.byteCount, whileLocked: whileLocked)
    }

    public func contains(_ key: Key) -> Bool { storage.contains(key) }
    public func remove(_ key: Key) { storage.remove(key) }
    public func respond(to reaction: MemoryPressureReaction) { storage.respond(to: reaction) }

    /// Decoded bytes held.
    public var totalCost: Int { storage.totalCost }
    public var count: Int { storage.count }
    public var statistics: CacheStatistics { storage.statistics }
}

extension ImageMemoryCache where Key == String {
    /// The image stored under the key whose UTF-8 bytes are `utf8`, without building
    /// the key string; `whileLocked`, when given, hears the outcome under the cache's lock
    /// (and the lookup takes it even for a hit).
    public func image(
        forUTF8 utf8: UnsafeBufferPointer<UInt8>, whileLocked: (@Sendable (_ hit: Bool) -> Void)?
    ) -> DecodedImage? {
        storage.value(forUTF8: utf8, whileLocked: whileLocked)
    }
}
