/// A `CacheCore` behind a class, so `MemoryCache` can pick its policy at run
/// time and still mutate the policy's arrays in place (an enum or existential
/// struct would copy them on every write).
@usableFromInline
protocol AnyCacheCore: AnyObject {
    var statistics: CacheStatistics { get }
    var totalCost: Int { get }
    var count: Int { get }
    var limits: CacheLimits { get }
    func lookup(_ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool
    func insert(_ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool
    func recordMiss()
    func remove(_ slot: Slot)
    func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void)
    func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void)
}

final class CacheCoreBox<Policy: EvictionPolicy>: AnyCacheCore {
    private var core: CacheCore<Policy>

    init(_ core: CacheCore<Policy>) { self.core = core }

    var statistics: CacheStatistics { core.statistics }
    var totalCost: Int { core.totalCost }
    var count: Int { core.count }
    var limits: CacheLimits { core.limits }

    func lookup(_ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        core.lookup(slot, now: now, removed: removed)
    }

    func insert(_ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        core.insert(entry, now: now, removed: removed)
    }

    func recordMiss() { core.recordMiss() }

    func remove(_ slot: Slot) { core.remove(slot) }

    func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void) {
        core.trim(toCost: target, removed: removed)
    }

    func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void) {
        core.respond(to: reaction, now: now, removed: removed)
    }
}

/// Builds a boxed core for whichever policy a kind names.
struct MakeCacheCoreBox: EvictionPolicyVisitor {
    let timeToLive: UInt64?

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> any AnyCacheCore {
        CacheCoreBox(CacheCore(policy: policy, timeToLive: timeToLive))
    }
}
