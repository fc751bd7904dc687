import ImagePipeline
@_spi(Simulation) import CacheEngine

/// The memory tier as the simulator runs it: a `CacheCore` per stripe of a striped
/// `MemoryCache`, each with that stripe's limits, and every key in the stripe its
/// fingerprint picks, as live (`CacheStripes`).
///
/// As in the live cache, a key holds a slot only while it is resident: a stripe hands
/// slots out from its free ones and takes each back when its entry leaves. A policy's
/// per-slot arrays then cover what the cache holds (thousands of entries, in cache) rather
/// than every key a trace names (millions, a cache miss for each victim). Policies never
/// read slot numbers, so which slot a key gets changes no decision.
struct StripedMemory<Policy: EvictionPolicy> {
    /// Stripe 0, held inline so an unstriped run reaches it directly.
    private var first: Stripe
    /// Stripes 1 and up; empty with one stripe.
    private var others: [Stripe] = []
    /// Per key, what a request needs of it on one line: its slot, fingerprint and stripe.
    private var keys: [KeyRecord]

    /// - Parameters:
    ///   - first: stripe 0's policy, built for its limits.
    ///   - cheapestCost: the least any request costs, so each stripe can reserve room for the
    ///     most entries it can hold at once (a run then allocates nothing per slot).
    init(
        first: Policy, kind: EvictionPolicyKind, limits: CacheLimits, stripes: CacheStripes,
        fingerprints: [UInt64], cheapestCost: Int, timeToLive: UInt64?, tracksLastUse: Bool
    ) {
        func stripe(_ index: Int) -> Stripe {
            let stripeLimits = stripes.limits(ofStripe: index, in: limits)
            let policy = index == 0 ? first : kind.withPolicy(limits: stripeLimits, PolicyOfType<Policy>())
            let most = min(fingerprints.count, stripeLimits.countLimit, stripeLimits.costLimit / max(cheapestCost, 1))
            return Stripe(core: CacheCore(policy: policy, timeToLive: timeToLive, tracksLastUse: tracksLastUse), reserving: most)
        }
        self.first = stripe(0)
        // Read at random, once per request: see `inHugePages`.
        keys = .inHugePages(count: fingerprints.count, filledWith: KeyRecord(fingerprint: 0, slot: StripeSlots.none, stripe: 0))
        for (key, fingerprint) in fingerprints.enumerated() {
            keys[key].fingerprint = fingerprint
            keys[key].stripe = UInt8(stripes.stripe(of: fingerprint))
        }
        guard stripes.count > 1 else { return }
        others = (1..<stripes.count).map(stripe)
    }

    /// Inlined: a call would pass this large struct by a copy, every insert.
    var totalCost: Int {
        @inline(__always) get { others.reduce(first.core.totalCost) { $0 + $1.core.totalCost } }
    }
    var statistics: CacheStatistics { others.reduce(first.core.statistics) { $0 + $1.core.statistics } }

    /// Keys a streamed trace names for the first time, whose ids follow those the tier knows.
    mutating func admit(_ fingerprints: [UInt64], stripes: CacheStripes) {
        guard !fingerprints.isEmpty else { return }
        let needed = keys.count + fingerprints.count
        if needed > keys.capacity {
            // Doubled, in huge pages as at the start: the records are read at random.
            keys = .inHugePages(capacity: max(needed, 2 * keys.count), copying: keys)
        }
        for fingerprint in fingerprints {
            keys.append(KeyRecord(fingerprint: fingerprint, slot: StripeSlots.none, stripe: UInt8(stripes.stripe(of: fingerprint))))
        }
    }

    /// The stripe `key` falls in, 0 for `first`.
    @inline(__always)
    private func stripe(of key: TraceKey) -> Int { others.isEmpty ? 0 : Int(keys[Int(key)].stripe) }

    /// A first hint that `key` comes soon: its record. Mutating, as `CacheCore.prefetch`
    /// is, so the tier is not copied to be borrowed.
    @inline(__always)
    mutating func prefetch(_ key: TraceKey) { keys.prefetch(Int(key)) }

    /// A second hint, nearer the request, once the record has arrived: the policy's
    /// metadata for the key's slot or, for a key with none, where the policy remembers it.
    @inline(__always)
    mutating func prefetchEntry(_ key: TraceKey) {
        let record = keys[Int(key)]
        let stripe = stripe(of: key)
        if record.slot != StripeSlots.none {
            if stripe == 0 { first.core.prefetch(record.slot) } else { others[stripe - 1].core.prefetch(record.slot) }
        } else if stripe == 0 {
            first.core.prefetch(absent: record.fingerprint)
        } else {
            others[stripe - 1].core.prefetch(absent: record.fingerprint)
        }
    }

    /// A third hint, a request or two ahead, once the policy's metadata has arrived: what a
    /// hit on the key's slot will write besides it.
    @inline(__always)
    mutating func prefetchNeighbours(_ key: TraceKey) {
        let slot = keys[Int(key)].slot
        guard slot != StripeSlots.none else { return }
        let stripe = stripe(of: key)
        if stripe == 0 { first.core.prefetchNeighbours(slot) } else { others[stripe - 1].core.prefetchNeighbours(slot) }
    }

    @inline(__always)
    mutating func lookup(_ key: TraceKey, now: UInt64) -> Bool {
        let stripe = stripe(of: key)
        return stripe == 0
            ? first.lookup(key, now: now, keys: &keys)
            : others[stripe - 1].lookup(key, now: now, keys: &keys)
    }

    /// Stores `key`'s new entry in its stripe.
    @inline(__always)
    mutating func insert(_ key: TraceKey, cost: Int, missCost: Int, now: UInt64) -> Bool {
        let stripe = stripe(of: key)
        return stripe == 0
            ? first.insert(key, cost: cost, missCost: missCost, now: now, keys: &keys)
            : others[stripe - 1].insert(key, cost: cost, missCost: missCost, now: now, keys: &keys)
    }

    mutating func remove(_ key: TraceKey) {
        let stripe = stripe(of: key)
        if stripe == 0 { first.remove(key, keys: &keys) } else { others[stripe - 1].remove(key, keys: &keys) }
    }

    /// A new process: every stripe starts empty, with no history.
    mutating func restart() {
        first.restart(keys: &keys)
        for stripe in others.indices { others[stripe].restart(keys: &keys) }
    }

    /// Applies a reaction to every stripe; `removed` hears the keys that left.
    mutating func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (TraceKey) -> Void) {
        first.respond(to: reaction, now: now, keys: &keys, removed: removed)
        for stripe in others.indices { others[stripe].respond(to: reaction, now: now, keys: &keys, removed: removed) }
    }

    /// One stripe: its core and which key holds each of its slots.
    private struct Stripe {
        var core: CacheCore<Policy>
        var slots = StripeSlots()

        init(core: CacheCore<Policy>, reserving entries: Int) {
            self.core = core
            slots.reserve(entries)
        }

        @inline(__always)
        mutating func lookup(_ key: TraceKey, now: UInt64, keys: inout [KeyRecord]) -> Bool {
            let slot = keys[Int(key)].slot
            guard slot != StripeSlots.none else {
                core.recordMiss()
                return false
            }
            // An expired entry, or (LIRS) entries a hit demotes out, leave here.
            return core.lookup(slot, now: now) { departed, _ in slots.release(departed, keys: &keys) }
        }

        @inline(__always)
        mutating func insert(_ key: TraceKey, cost: Int, missCost: Int, now: UInt64, keys: inout [KeyRecord]) -> Bool {
            let record = keys[Int(key)]
            var entry = NewEntry(slot: record.slot, cost: cost, fingerprint: record.fingerprint, missCost: missCost)
            if entry.slot == StripeSlots.none { entry.slot = slots.assign(key, keys: &keys) }
            let stored = core.insert(entry, now: now) { victim, _ in slots.release(victim, keys: &keys) }
            if !stored { slots.release(entry.slot, keys: &keys) }
            prefetchUpcomingVictims(keys: keys)
            return stored
        }

        /// An eviction reads the key its victim's slot holds, then writes that key's record:
        /// two loads from places no request names. For the policy's next victim but one the
        /// first starts loading here; for the next, whose key came with that hint an eviction
        /// ago, the record does.
        @inline(__always)
        private func prefetchUpcomingVictims(keys: [KeyRecord]) {
            let (soonest, next) = core.upcomingVictims()
            if next != StripeSlots.none { slots.prefetchKey(of: next) }
            guard soonest != StripeSlots.none else { return }
            let key = slots.key(of: soonest)
            if key != StripeSlots.none { keys.prefetch(Int(key)) }
        }

        mutating func remove(_ key: TraceKey, keys: inout [KeyRecord]) {
            let slot = keys[Int(key)].slot
            guard slot != StripeSlots.none else { return }
            core.remove(slot)
            slots.release(slot, keys: &keys)
        }

        mutating func restart(keys: inout [KeyRecord]) {
            core.restart()
            slots.releaseAll(keys: &keys)
        }

        mutating func respond(
            to reaction: MemoryPressureReaction, now: UInt64, keys: inout [KeyRecord], removed: (TraceKey) -> Void
        ) {
            core.respond(to: reaction, now: now) { slot, _ in removed(slots.release(slot, keys: &keys)) }
        }
    }
}

/// What the tier keeps of one key, together so a request reads one line: the slot
/// holding it (`StripeSlots.none` while it is not resident), its fingerprint (which a
/// new entry carries) and its stripe.
private struct KeyRecord: BitwiseCopyable {
    var fingerprint: UInt64
    var slot: Slot
    var stripe: UInt8
}

/// One stripe's slots: the key in each, and the free ones, reused last freed first.
private struct StripeSlots {
    static let none: Slot = -1
    private var keyOfSlot: [TraceKey] = []
    private var free: [Slot] = []

    /// Room for `entries` slots (and a few free at once) before anything grows.
    mutating func reserve(_ entries: Int) {
        keyOfSlot.reserveCapacity(entries + 1)
        free.reserveCapacity(min(entries + 1, 64))
    }

    /// Gives `key` a slot and notes it in the key's record.
    @inline(__always)
    mutating func assign(_ key: TraceKey, keys: inout [KeyRecord]) -> Slot {
        let slot: Slot
        if let reused = free.popLast() {
            slot = reused
            keyOfSlot[Int(slot)] = key
        } else {
            slot = Slot(keyOfSlot.count)
            keyOfSlot.append(key)
        }
        keys[Int(key)].slot = slot
        return slot
    }

    /// The key `slot` holds.
    @inline(__always)
    func key(of slot: Slot) -> TraceKey { keyOfSlot[Int(slot)] }

    /// Starts loading which key `slot` holds.
    @inline(__always)
    func prefetchKey(of slot: Slot) { keyOfSlot.prefetch(Int(slot)) }

    /// Takes `slot` back from the key it held; returns that key.
    @inline(__always) @discardableResult
    mutating func release(_ slot: Slot, keys: inout [KeyRecord]) -> TraceKey {
        let key = keyOfSlot[Int(slot)]
        keyOfSlot[Int(slot)] = Self.none
        keys[Int(key)].slot = Self.none
        free.append(slot)
        return key
    }

    /// Takes every slot back (the policy forgot them all).
    mutating func releaseAll(keys: inout [KeyRecord]) {
        for key in keyOfSlot where key != Self.none { keys[Int(key)].slot = Self.none }
        keyOfSlot.removeAll(keepingCapacity: true)
        free.removeAll(keepingCapacity: true)
    }
}

/// Hands back a policy as the type the same kind built before (one kind always
/// builds one type).
private struct PolicyOfType<Policy: EvictionPolicy>: EvictionPolicyVisitor {
    func visit<Built: EvictionPolicy>(_ policy: Built) -> Policy {
        guard let policy = policy as? Policy else {
            preconditionFailure("\(Built.name) built where \(Policy.name) was built before")
        }
        return policy
    }
}
