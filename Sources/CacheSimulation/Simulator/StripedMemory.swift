import ImagePipeline

/// The memory tier as the simulator runs it: a `CacheCore` per stripe of a striped
/// `MemoryCache`, each with that stripe's limits, and every key in the stripe its
/// fingerprint picks, as live (`CacheStripes`). Policies never read slot numbers, so a
/// key's slot in its stripe is simply its rank there. With one stripe (the default) a
/// key is its own slot and nothing is looked up on the way.
struct StripedMemory<Policy: EvictionPolicy> {
    /// Stripe 0, held inline so an unstriped run allocates nothing for its tier.
    private var first: CacheCore<Policy>
    /// Stripes 1 and up; empty with one stripe.
    private var others: [CacheCore<Policy>] = []
    /// Per key, its stripe and its slot there; empty with one stripe.
    private var stripeOfKey: [UInt8] = []
    private var slotInStripe: [Slot] = []
    /// Per stripe, the key in each of its slots.
    private var keysOfStripe: [[Slot]] = []

    /// - Parameter first: stripe 0's policy, built for its limits.
    init(
        first: Policy, kind: EvictionPolicyKind, limits: CacheLimits, stripes: CacheStripes,
        fingerprints: [UInt64], timeToLive: UInt64?, tracksLastUse: Bool
    ) {
        self.first = CacheCore(policy: first, timeToLive: timeToLive, tracksLastUse: tracksLastUse)
        guard stripes.count > 1 else { return }
        others = (1..<stripes.count).map { stripe in
            let policy = kind.withPolicy(limits: stripes.limits(ofStripe: stripe, in: limits), PolicyOfType<Policy>())
            return CacheCore(policy: policy, timeToLive: timeToLive, tracksLastUse: tracksLastUse)
        }
        stripeOfKey = [UInt8](repeating: 0, count: fingerprints.count)
        slotInStripe = [Slot](repeating: 0, count: fingerprints.count)
        keysOfStripe = [[Slot]](repeating: [], count: stripes.count)
        for (key, fingerprint) in fingerprints.enumerated() {
            let stripe = stripes.stripe(of: fingerprint)
            stripeOfKey[key] = UInt8(stripe)
            slotInStripe[key] = Slot(keysOfStripe[stripe].count)
            keysOfStripe[stripe].append(Slot(key))
        }
    }

    /// Inlined: a call would pass this large struct by a copy (208 bytes for LRU), every insert.
    var totalCost: Int {
        @inline(__always) get { others.reduce(first.totalCost) { $0 + $1.totalCost } }
    }
    var statistics: CacheStatistics { others.reduce(first.statistics) { $0 + $1.statistics } }

    /// The stripe `key` falls in (0 is `first`) and the key's slot there.
    @inline(__always)
    private func location(of key: Slot) -> (stripe: Int, slot: Slot) {
        stripeOfKey.isEmpty ? (0, key) : (Int(stripeOfKey[Int(key)]), slotInStripe[Int(key)])
    }

    /// Runs `body` on the stripe `key` falls in, with the key's slot there.
    @inline(__always)
    private mutating func withStripe<Result>(of key: Slot, _ body: (inout CacheCore<Policy>, Slot) -> Result) -> Result {
        let (stripe, slot) = location(of: key)
        return stripe == 0 ? body(&first, slot) : body(&others[stripe - 1], slot)
    }

    /// A hint that `key` is about to be looked up (mutating, as `CacheCore.prefetch` is).
    @inline(__always)
    mutating func prefetch(_ key: Slot) {
        withStripe(of: key) { core, slot in core.prefetch(slot) }
    }

    @inline(__always)
    mutating func lookup(_ key: Slot, now: UInt64) -> Bool {
        withStripe(of: key) { core, slot in core.lookup(slot, now: now) { _, _ in } }
    }

    /// Stores `entry` (whose slot is its key) in its stripe.
    @inline(__always)
    mutating func insert(_ entry: NewEntry, now: UInt64) -> Bool {
        withStripe(of: entry.slot) { core, slot in
            var local = entry
            local.slot = slot
            return core.insert(local, now: now) { _, _ in }
        }
    }

    mutating func remove(_ key: Slot) {
        withStripe(of: key) { core, slot in core.remove(slot) }
    }

    /// A new process: every stripe starts empty, with no history.
    mutating func restart() {
        first.restart()
        for stripe in others.indices { others[stripe].restart() }
    }

    /// Applies a reaction to every stripe; `removed` hears the keys that left.
    mutating func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot) -> Void) {
        guard !stripeOfKey.isEmpty else { return first.respond(to: reaction, now: now) { slot, _ in removed(slot) } }
        first.respond(to: reaction, now: now) { slot, _ in removed(keysOfStripe[0][Int(slot)]) }
        for stripe in others.indices {
            others[stripe].respond(to: reaction, now: now) { slot, _ in removed(keysOfStripe[stripe + 1][Int(slot)]) }
        }
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
