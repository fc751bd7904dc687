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

/// A boxed core whose requirements are met once, below, for every policy. A
/// non-generic box (one per built-in policy) gets them specialised into its
/// witnesses; a generic box's methods would be shared code that looks up its
/// core's layout on every call (a fifth of a get-or-set's time).
protocol PolicyCoreBox: AnyCacheCore {
    associatedtype Policy: EvictionPolicy
    var core: CacheCore<Policy> { get set }
    init(_ core: CacheCore<Policy>)
}

extension PolicyCoreBox {
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

/// The box for a policy without a box of its own (one written outside this module).
final class CacheCoreBox<Policy: EvictionPolicy>: PolicyCoreBox {
    var core: CacheCore<Policy>
    init(_ core: CacheCore<Policy>) { self.core = core }
}

final class LRUCoreBox: PolicyCoreBox {
    var core: CacheCore<LRUPolicy>
    init(_ core: CacheCore<LRUPolicy>) { self.core = core }
}

final class FIFOCoreBox: PolicyCoreBox {
    var core: CacheCore<FIFOPolicy>
    init(_ core: CacheCore<FIFOPolicy>) { self.core = core }
}

final class CLOCKCoreBox: PolicyCoreBox {
    var core: CacheCore<CLOCKPolicy>
    init(_ core: CacheCore<CLOCKPolicy>) { self.core = core }
}

final class SIEVECoreBox: PolicyCoreBox {
    var core: CacheCore<SIEVEPolicy>
    init(_ core: CacheCore<SIEVEPolicy>) { self.core = core }
}

final class S3FIFOCoreBox: PolicyCoreBox {
    var core: CacheCore<S3FIFOPolicy>
    init(_ core: CacheCore<S3FIFOPolicy>) { self.core = core }
}

final class WTinyLFUCoreBox: PolicyCoreBox {
    var core: CacheCore<WTinyLFUPolicy>
    init(_ core: CacheCore<WTinyLFUPolicy>) { self.core = core }
}

final class LibCacheSimWTinyLFUCoreBox: PolicyCoreBox {
    var core: CacheCore<LibCacheSimWTinyLFUPolicy>
    init(_ core: CacheCore<LibCacheSimWTinyLFUPolicy>) { self.core = core }
}

final class GDSFCoreBox: PolicyCoreBox {
    var core: CacheCore<GDSFPolicy>
    init(_ core: CacheCore<GDSFPolicy>) { self.core = core }
}

final class ARCCoreBox: PolicyCoreBox {
    var core: CacheCore<ARCPolicy>
    init(_ core: CacheCore<ARCPolicy>) { self.core = core }
}

final class TwoQCoreBox: PolicyCoreBox {
    var core: CacheCore<TwoQPolicy>
    init(_ core: CacheCore<TwoQPolicy>) { self.core = core }
}

final class LIRSCoreBox: PolicyCoreBox {
    var core: CacheCore<LIRSPolicy>
    init(_ core: CacheCore<LIRSPolicy>) { self.core = core }
}

final class NSCacheCoreBox: PolicyCoreBox {
    var core: CacheCore<NSCachePolicy>
    init(_ core: CacheCore<NSCachePolicy>) { self.core = core }
}

/// Builds a boxed core for whichever policy a kind names: the policy's own box
/// when it has one.
struct MakeCacheCoreBox: EvictionPolicyVisitor {
    let timeToLive: UInt64?

    static var boxes: [any PolicyCoreBox.Type] {
        [
            LRUCoreBox.self, FIFOCoreBox.self, CLOCKCoreBox.self, SIEVECoreBox.self, S3FIFOCoreBox.self,
            WTinyLFUCoreBox.self, LibCacheSimWTinyLFUCoreBox.self, GDSFCoreBox.self, ARCCoreBox.self,
            TwoQCoreBox.self, LIRSCoreBox.self, NSCacheCoreBox.self,
        ]
    }

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> any AnyCacheCore {
        let core = CacheCore(policy: policy, timeToLive: timeToLive)
        for box in Self.boxes {
            if let boxed = Self.box(core, in: box) { return boxed }
        }
        return CacheCoreBox(core)
    }

    private static func box<Policy: EvictionPolicy, Box: PolicyCoreBox>(_ core: CacheCore<Policy>, in _: Box.Type) -> Box? {
        (core as? CacheCore<Box.Policy>).map(Box.init)
    }
}
