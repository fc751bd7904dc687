import ImagePipeline

/// The memory tier as the simulator runs it: a `CacheCore` per stripe of a striped
/// `MemoryCache`, each with that stripe's limits, and every key in the stripe its
/// fingerprint picks, as live (`CacheStripes`). Policies never read slot numbers, so a
/// key's slot in its stripe is simply its rank there. With one stripe (the default) a
/// key is its own slot and nothing is looked up on the way.
struct StripedMemory<Policy: EvictionPolicy> {
    private(set) var cores: [CacheCore<Policy>]
    /// Per key, its stripe and its slot there; empty with one stripe.
    private let stripeOfKey: [UInt8]
    private let slotInStripe: [Slot]
    /// Per stripe, the key in each of its slots.
    private let keysOfStripe: [[Slot]]

    /// - Parameter first: stripe 0's policy, built for its limits.
    init(
        first: Policy, kind: EvictionPolicyKind, limits: CacheLimits, stripes: CacheStripes,
        fingerprints: [UInt64], timeToLive: UInt64?, tracksLastUse: Bool
    ) {
        var policies = [first]
        for stripe in 1..<stripes.count {
            policies.append(kind.withPolicy(limits: stripes.limits(ofStripe: stripe, in: limits), PolicyOfType<Policy>()))
        }
        cores = policies.map { CacheCore(policy: $0, timeToLive: timeToLive, tracksLastUse: tracksLastUse) }
        guard stripes.count > 1 else {
            stripeOfKey = []
            slotInStripe = []
            keysOfStripe = []
            return
        }
        var stripeOfKey = [UInt8](repeating: 0, count: fingerprints.count)
        var slotInStripe = [Slot](repeating: 0, count: fingerprints.count)
        var keysOfStripe = [[Slot]](repeating: [], count: stripes.count)
        for (key, fingerprint) in fingerprints.enumerated() {
            let stripe = stripes.stripe(of: fingerprint)
            stripeOfKey[key] = UInt8(stripe)
            slotInStripe[key] = Slot(keysOfStripe[stripe].count)
            keysOfStripe[stripe].append(Slot(key))
        }
        self.stripeOfKey = stripeOfKey
        self.slotInStripe = slotInStripe
        self.keysOfStripe = keysOfStripe
    }

    var totalCost: Int { cores.count == 1 ? cores[0].totalCost : cores.reduce(0) { $0 + $1.totalCost } }
    var statistics: CacheStatistics { cores.reduce(.zero) { $0 + $1.statistics } }

    @inline(__always)
    mutating func lookup(_ key: Slot, now: UInt64) -> Bool {
        guard !stripeOfKey.isEmpty else { return cores[0].lookup(key, now: now) { _, _ in } }
        return cores[Int(stripeOfKey[Int(key)])].lookup(slotInStripe[Int(key)], now: now) { _, _ in }
    }

    /// Stores `entry` (whose slot is its key) in its stripe.
    @inline(__always)
    mutating func insert(_ entry: NewEntry, now: UInt64) -> Bool {
        guard !stripeOfKey.isEmpty else { return cores[0].insert(entry, now: now) { _, _ in } }
        var local = entry
        local.slot = slotInStripe[Int(entry.slot)]
        return cores[Int(stripeOfKey[Int(entry.slot)])].insert(local, now: now) { _, _ in }
    }

    mutating func remove(_ key: Slot) {
        guard !stripeOfKey.isEmpty else { return cores[0].remove(key) }
        cores[Int(stripeOfKey[Int(key)])].remove(slotInStripe[Int(key)])
    }

    /// A new process: every stripe starts empty, with no history.
    mutating func restart() {
        for stripe in cores.indices { cores[stripe].restart() }
    }

    /// Applies a reaction to every stripe; `removed` hears the keys that left.
    mutating func respond(to reaction: MemoryPressureReaction, now: UInt64, removed: (Slot) -> Void) {
        guard !stripeOfKey.isEmpty else { return cores[0].respond(to: reaction, now: now) { slot, _ in removed(slot) } }
        for stripe in cores.indices {
            cores[stripe].respond(to: reaction, now: now) { slot, _ in removed(keysOfStripe[stripe][Int(slot)]) }
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
