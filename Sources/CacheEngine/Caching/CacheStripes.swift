/// How a cache is split into stripes, each with its own lock, policy and share of
/// the limits, so threads working on different keys do not wait for one another
/// (Guava's segments). A key's stripe comes from its fingerprint, which is the same
/// in every run, so the simulator splits a trace's keys exactly as the live cache does.
///
/// Each stripe evicts on its own, so a striped cache is a little less exact than one
/// policy over everything: with `count` small next to the entries it holds the hit
/// ratio barely moves (BENCHMARKS.md measures it), while a stripe that holds only a
/// few entries evicts much earlier than the whole cache would.
public struct CacheStripes: Sendable, Hashable, CustomStringConvertible {
    /// How many stripes: 1 (one lock, one policy over everything) to 256.
    public let count: Int

    public init(_ count: Int) {
        precondition((1...256).contains(count), "a cache has 1 to 256 stripes, not \(count)")
        self.count = count
    }

    /// One stripe: the whole cache under one lock.
    public static let single = CacheStripes(1)

    public var description: String { String(count) }

    /// The stripe of a key with this fingerprint: the high bits of fingerprint × count,
    /// spread evenly, and unrelated to the low bits hash tables and sketches use.
    @inlinable @inline(__always)
    public func stripe(of fingerprint: UInt64) -> Int {
        Int(truncatingIfNeeded: fingerprint.multipliedFullWidth(by: UInt64(count)).high)
    }

    /// Stripe `stripe`'s share of `total`, split as evenly as whole units allow
    /// (the shares add up to `total`); an absent limit (`Int.max`) stays absent.
    @inlinable
    public func share(of total: Int, stripe: Int) -> Int {
        guard total != .max else { return .max }
        return total / count + (stripe < total % count ? 1 : 0)
    }

    /// Stripe `stripe`'s limits: its share of the cost and count limits, and the same
    /// largest entry the whole cache would take.
    public func limits(ofStripe stripe: Int, in limits: CacheLimits) -> CacheLimits {
        guard count > 1 else { return limits }
        let cost = share(of: limits.costLimit, stripe: stripe)
        let largest = limits.maxEntryCost
        let fraction = cost == .max || cost == 0 ? limits.maxEntryFraction : min(Double(largest) / Double(cost), 1)
        return CacheLimits(
            costLimit: cost, countLimit: share(of: limits.countLimit, stripe: stripe), maxEntryFraction: fraction)
    }
}
