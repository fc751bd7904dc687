import ImagePipeline

/// A memory cache of your own, as `CacheReplay` drives it with a recorded
/// workload: the way an app drives its image cache while people scroll.
///
/// Keys are the memory keys the chosen `CacheKeyStrategy` makes (one string per
/// distinct key, made before the replay, so the replay itself allocates nothing).
/// A class-based cache conforms through a small struct holding it.
public protocol ReplayableCache {
    /// Whether the cache holds `key`: the app's lookup, so a hit counts as a use.
    mutating func lookup(_ key: String) -> Bool
    /// Stores the picture for `key` after a miss was answered: `cost` is its
    /// decoded thumbnail's bytes, `downloadedBytes` what the miss downloaded (what
    /// a cost-aware policy such as GDSF weighs). Returns false when the cache declined it.
    mutating func store(_ key: String, cost: Int, downloadedBytes: Int) -> Bool
    /// The app received a memory warning (the workload's own, as recorded).
    mutating func memoryWarning(_ level: MemoryPressureLevel)
    /// The app restarted, or the next session is on another device: memory starts empty.
    mutating func removeAll()
}
