/// A `CacheCore` behind a class, so `MemoryCache` can pick its policy at run
/// time and still mutate the policy's arrays in place (an enum or existential
/// struct would copy them on every write).
@usableFromInline
protocol AnyCacheCore: AnyObject {
    var statistics: CacheStatistics { get }
    var totalCost: Int { get }
    var count: Int { get }
    var limits: CacheLimits { get }
    func remove(_ slot: Slot)
    func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void)
    func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void)

    /// The core itself, for the static calls below.
    var coreAddress: UnsafeMutableRawPointer { get }
    // The calls of every request, reached through the box's type and its core's address:
    // both trivial values, where a call on the box retained and released it around each
    // call that hands the core a closure mutating the state that holds the box.
    static func lookup(core: UnsafeMutableRawPointer, _ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool
    static func insert(core: UnsafeMutableRawPointer, _ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool
    static func recordMiss(core: UnsafeMutableRawPointer)
    // Hits without the lock: logged by a reader, applied or counted later by a writer.
    static var hitsCanWait: Bool { get }
    /// Whether the policy stamps the stripe's shadows where it clears a mark (`SlotShadows`).
    var usesShadows: Bool { get }
    static func contains(core: UnsafeMutableRawPointer, _ slot: Slot) -> Bool
    static func countHits(core: UnsafeMutableRawPointer, _ count: Int)
}

/// A stripe's core as requests reach it: the box's type and the core's address, through which
/// each request makes the static calls of `AnyCacheCore`. Both are trivial values and the box is
/// not among them (its owner keeps it), so a request copies the handle without retaining the box:
/// held here, the box was retained and released around every call that hands the core a closure
/// over the state that holds it (BENCHMARKS.md, "Measurements behind the code's shape").
@usableFromInline
struct CoreHandle {
    @usableFromInline let type: any AnyCacheCore.Type
    @usableFromInline let address: UnsafeMutableRawPointer

    init(_ box: any AnyCacheCore) {
        type = Swift.type(of: box)
        address = box.coreAddress
    }

    @inlinable @inline(__always)
    func lookup(_ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        type.lookup(core: address, slot, now: now, removed: removed)
    }

    @inlinable @inline(__always)
    func insert(_ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        type.insert(core: address, entry, now: now, removed: removed)
    }

    @inlinable @inline(__always)
    func recordMiss() { type.recordMiss(core: address) }

    @inlinable @inline(__always)
    func contains(_ slot: Slot) -> Bool { type.contains(core: address, slot) }

    @inlinable @inline(__always)
    func countHits(_ count: Int) { type.countHits(core: address, count) }

    @inlinable var hitsCanWait: Bool { type.hitsCanWait }
}

/// A boxed core whose requirements are met once, below, for every policy. A
/// non-generic box (one per built-in policy) gets them specialised into its
/// witnesses; a generic box's methods would be shared code that looks up its
/// core's layout on every call (a fifth of a get-or-set's time).
///
/// The core lives behind a pointer the box owns, not in a stored `var`: a class's
/// stored property is checked for exclusive access at run time on every mutation
/// (`swift_beginAccess`, a thread-local lookup: a tenth of a get-or-set), and the
/// box is only ever used under its stripe's lock (readers without it never reach the core).
protocol PolicyCoreBox: AnyCacheCore {
    associatedtype Policy: EvictionPolicy
    var storage: UnsafeMutablePointer<CacheCore<Policy>> { get }
    init(storage: UnsafeMutablePointer<CacheCore<Policy>>)
}

extension PolicyCoreBox {
    init(_ core: CacheCore<Policy>) {
        let storage = UnsafeMutablePointer<CacheCore<Policy>>.allocate(capacity: 1)
        storage.initialize(to: core)
        self.init(storage: storage)
    }

    var core: CacheCore<Policy> {
        unsafeAddress { UnsafePointer(storage) }
        unsafeMutableAddress { storage }
    }

    var statistics: CacheStatistics { core.statistics }
    var totalCost: Int { core.totalCost }
    var count: Int { core.count }
    var limits: CacheLimits { core.limits }

    var coreAddress: UnsafeMutableRawPointer { UnsafeMutableRawPointer(storage) }

    static func lookup(core: UnsafeMutableRawPointer, _ slot: Slot, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        core.assumingMemoryBound(to: CacheCore<Policy>.self).pointee.lookup(slot, now: now, removed: removed)
    }

    static func insert(core: UnsafeMutableRawPointer, _ entry: NewEntry, now: UInt64, removed: (Slot, EvictionReason) -> Void) -> Bool {
        core.assumingMemoryBound(to: CacheCore<Policy>.self).pointee.insert(entry, now: now, removed: removed)
    }

    static func recordMiss(core: UnsafeMutableRawPointer) {
        core.assumingMemoryBound(to: CacheCore<Policy>.self).pointee.recordMiss()
    }

    static var hitsCanWait: Bool { Policy.hitsCanWait }

    var usesShadows: Bool { (core.policy as? any SingleQueuePolicy)?.queue.table.shadows != nil }

    static func contains(core: UnsafeMutableRawPointer, _ slot: Slot) -> Bool {
        core.assumingMemoryBound(to: CacheCore<Policy>.self).pointee.contains(slot)
    }

    static func countHits(core: UnsafeMutableRawPointer, _ count: Int) {
        core.assumingMemoryBound(to: CacheCore<Policy>.self).pointee.countHits(count)
    }

    func remove(_ slot: Slot) { core.remove(slot) }

    func trim(toCost target: Int, removed: (Slot, EvictionReason) -> Void) {
        core.trim(toCost: target, removed: removed)
    }

    func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot, EvictionReason) -> Void) {
        core.respond(to: reaction, now: now, removed: removed)
    }
}

/// A built-in policy with a box of its own, declared beside it (`extension LRUPolicy: BoxedPolicy`),
/// so its core's calls are specialised into the box's witnesses.
protocol BoxedPolicy: EvictionPolicy {
    associatedtype CoreBox: PolicyCoreBox where CoreBox.Policy == Self
}

/// The box for a policy without a box of its own (one written outside this module).
final class CacheCoreBox<Policy: EvictionPolicy>: PolicyCoreBox {
    let storage: UnsafeMutablePointer<CacheCore<Policy>>
    init(storage: UnsafeMutablePointer<CacheCore<Policy>>) { self.storage = storage }
    deinit { storage.deinitialize(count: 1).deallocate() }
}

/// Builds a boxed core for whichever policy a kind names: the policy's own box
/// when it has one.
struct MakeCacheCoreBox: EvictionPolicyVisitor {
    let timeToLive: UInt64?
    /// The stripe's shadows, given to a policy whose hits only set marks.
    var shadows: UnsafePointer<SlotShadows>? = nil

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> any AnyCacheCore {
        var policy = policy
        // A policy whose hits only set marks stamps the shadows wherever it clears one.
        if Policy.hitsAreIdempotent, let shadows, var single = policy as? any SingleQueuePolicy {
            single.queue.table.shadows = shadows
            policy = single as! Policy
        }
        let core = CacheCore(policy: policy, timeToLive: timeToLive)
        guard let boxed = Policy.self as? any BoxedPolicy.Type else { return CacheCoreBox(core) }
        return Self.box(core, as: boxed)
    }

    private static func box<Policy: EvictionPolicy, Boxed: BoxedPolicy>(_ core: CacheCore<Policy>, as _: Boxed.Type) -> any AnyCacheCore {
        Boxed.CoreBox(core as! CacheCore<Boxed>)
    }
}
