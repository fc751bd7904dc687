import CacheEngine

/// The memory tier a pipeline asks first: decoded thumbnails by key (Nuke's `ImageCaching`).
/// `ImageMemoryCache` is the built-in one; a tier of your own plugs in through
/// `ImagePipeline.Configuration.imageCache`, and a live replay drives it like any other.
public protocol ImageCaching: Sendable {
    /// The thumbnail stored under `key`; a hit counts as a use.
    func image(for key: String) -> DecodedImage?
    /// Stores `image` under `key`, replacing what was there. `whenStored` runs once it is
    /// in (or refused), ordered with the tier's other decisions (a replay records that order).
    func insert(_ image: DecodedImage, for key: String, whenStored: @Sendable () -> Void)
    /// Whether `key` is held, without counting a use: the pipeline asks it to forget
    /// the keys of thumbnails the tier has let go of.
    func contains(_ key: String) -> Bool
    func remove(_ key: String)
    func respond(to reaction: MemoryPressureReaction)
    /// Thumbnails held.
    var count: Int { get }
    /// Decoded bytes held.
    var totalCost: Int { get }
    /// The thumbnail under the key whose UTF-8 bytes are `utf8`; `whileLocked` hears whether
    /// it was a hit, ordered like `whenStored`. A tier that can look up bytes without
    /// building a string answers a hit without allocating.
    func image(forUTF8 utf8: UnsafeBufferPointer<UInt8>, whileLocked: (@Sendable (_ hit: Bool) -> Void)?) -> DecodedImage?
}

extension ImageCaching {
    public func image(forUTF8 utf8: UnsafeBufferPointer<UInt8>, whileLocked: (@Sendable (_ hit: Bool) -> Void)?) -> DecodedImage? {
        let image = image(for: String(decoding: utf8, as: UTF8.self))
        whileLocked?(image != nil)
        return image
    }

    public func removeAll() { respond(to: .purgeAll) }
}

extension ImageMemoryCache: ImageCaching where Key == String {
    public func insert(_ image: DecodedImage, for key: String, whenStored: @Sendable () -> Void) {
        insert(image, for: key, whileLocked: whenStored)
    }
}
