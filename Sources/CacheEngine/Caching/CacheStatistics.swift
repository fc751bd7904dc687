/// Counters a cache keeps; they add up: every lookup is a hit or a miss, and
/// the entries held are `insertions − evictions − trimmed − expirations − removals`.
public struct CacheStatistics: Sendable, Equatable, Codable {
    public var hits = 0
    public var misses = 0
    /// Entries stored.
    public var insertions = 0
    /// Entries refused: larger than the per-entry limit, or declined by the policy's admission.
    public var rejections = 0
    /// Entries evicted to make room.
    public var evictions = 0
    /// Entries dropped by memory-pressure reactions and trims.
    public var trimmed = 0
    /// Entries that outlived their time-to-live.
    public var expirations = 0
    /// Entries removed by their owner, or replaced by a new value for the same key.
    public var removals = 0

    public init() {}

    public var lookups: Int { hits + misses }
    public var hitRatio: Double { lookups == 0 ? 0 : Double(hits) / Double(lookups) }
    /// Entries the counters say are held.
    public var resident: Int { insertions - evictions - trimmed - expirations - removals }
}

/// Counters add up across a striped cache's stripes, and subtract to what happened
/// between two readings.
extension CacheStatistics: AdditiveArithmetic {
    public static var zero: CacheStatistics { CacheStatistics() }

    public static func + (lhs: Self, rhs: Self) -> Self { lhs.combined(with: rhs, by: +) }
    public static func - (lhs: Self, rhs: Self) -> Self { lhs.combined(with: rhs, by: -) }

    private func combined(with other: Self, by operation: (Int, Int) -> Int) -> Self {
        var result = Self()
        result.hits = operation(hits, other.hits)
        result.misses = operation(misses, other.misses)
        result.insertions = operation(insertions, other.insertions)
        result.rejections = operation(rejections, other.rejections)
        result.evictions = operation(evictions, other.evictions)
        result.trimmed = operation(trimmed, other.trimmed)
        result.expirations = operation(expirations, other.expirations)
        result.removals = operation(removals, other.removals)
        return result
    }
}

/// Why an entry left the cache.
public enum EvictionReason: String, Sendable, Codable {
    /// Made room for a new entry.
    case capacity
    /// A memory-pressure reaction or an explicit trim.
    case trimmed
    /// Its time-to-live ran out.
    case expired
}
