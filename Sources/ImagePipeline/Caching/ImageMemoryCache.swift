/// The memory tier for decoded images: a `MemoryCache` whose cost is each
/// image's decoded pixel bytes, the memory it really holds (the apps counted
/// encoded bytes, which understates it ten-fold or more).
public struct ImageMemoryCache<Key: Hashable & Sendable & CacheFingerprintable>: Sendable {
    public let storage: MemoryCache<Key, DecodedImage>

    public init(
        _ configuration: MemoryCache<Key, DecodedImage>.Configuration,
        onEviction: MemoryCache<Key, DecodedImage>.EvictionHandler? = nil
    ) {
        storage = MemoryCache(configuration, onEviction: onEviction)
    }

    public func image(for key: Key) -> DecodedImage? { storage.value(for: key) }

    @discardableResult
    public func insert(_ image: DecodedImage, for key: Key) -> Bool {
        storage.insert(image, for: key, cost: image.cost, missCost: image.source.byteCount)
    }

    public func remove(_ key: Key) { storage.remove(key) }
}
