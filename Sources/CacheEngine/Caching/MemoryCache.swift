import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe in-memory cache with a cost limit, a count limit and a
/// pluggable eviction policy. Knows nothing of images: `ImageMemoryCache` is
/// the thin wrapper for those.
///
/// Writers (inserts, misses, removals, trims) take a lock per stripe: one stripe by default,
/// more (`Configuration.stripes`) so threads working on different keys do not wait for each
/// other. A hit takes no lock when the configuration reads hits lock-free (every policy but LRU
/// unless told) and the policy's hits can wait (`EvictionPolicy.hitsCanWait`:
/// every built-in policy but LIRS and libCacheSim's W-TinyLFU): it reads the stripe beside
/// its writers and logs itself for the next of them, which applies it before anything else
/// (`LockedStripes`), so threads that hit write nothing they share, and one thread's requests
/// are decided exactly as under the lock. Eviction callbacks run after the lock is released,
/// so they may call back into the cache.
public final class MemoryCache<Key: Hashable & Sendable & CacheFingerprintable, Value: Sendable>: Sendable {
    public struct Configuration: Sendable {
        public var limits: CacheLimits
        public var policy: EvictionPolicyKind
        /// Entries expire this long after insertion; nil for never.
        public var timeToLive: Duration?
        /// How many stripes the cache is split into, each with its own lock, policy and
        /// share of the limits (the simulator splits a trace the same way).
        public var stripes: CacheStripes
        /// Whether a hit is read without the lock where the policy allows it (epochs, a log
        /// per thread); off, every request takes its stripe's lock, and writers keep no
        /// readers' books. Both decide every request alike. Unless given, the policy's
        /// faster form (`EvictionPolicyKind.readsHitsLockFreeByDefault`).
        public var lockFreeHits: Bool

        public init(
            limits: CacheLimits, policy: EvictionPolicyKind = .lru, timeToLive: Duration? = nil,
            stripes: CacheStripes = .single, lockFreeHits: Bool? = nil
        ) {
            self.limits = limits
            self.policy = policy
            self.timeToLive = timeToLive
            self.stripes = stripes
            self.lockFreeHits = lockFreeHits ?? policy.readsHitsLockFreeByDefault
        }
    }

    /// Hears every entry that leaves other than by `remove(_:)`.
    public typealias EvictionHandler = @Sendable (Key, Value, EvictionReason) -> Void

    public let configuration: Configuration
    // Internal but inlinable-visible: callers in other modules specialise the
    // hot paths for their Key and Value (BENCHMARKS.md, "Measurements behind the code's shape").
    @usableFromInline let stripes: LockedStripes<State>
    @usableFromInline let onEviction: EvictionHandler?
    /// Whether hits are read without the lock (`EvictionPolicy.hitsCanWait`).
    @usableFromInline let hitsCanWait: Bool
    /// Whether a hit may skip its log when its slot's shadow says an equal one is logged
    /// (`EvictionPolicy.hitsAreIdempotent`, `SlotShadows`).
    @usableFromInline let hitsSkipLogs: Bool
    /// This cache's seed for key types that hash themselves (`CacheFingerprintable.cacheIndexHash(seed:)`).
    @usableFromInline let indexSeed = UInt64.random(in: .min ... .max)

    public init(_ configuration: Configuration, onEviction: EvictionHandler? = nil) {
        self.configuration = configuration
        self.onEviction = onEviction
        let timeToLive = configuration.timeToLive.map { UInt64(max($0.nanoseconds, 0)) }
        stripes = LockedStripes(count: configuration.stripes.count, readers: configuration.lockFreeHits) { stripe in
            let limits = configuration.stripes.limits(ofStripe: stripe, in: configuration.limits)
            let shadows = UnsafeMutablePointer<SlotShadows>.allocate(capacity: 1)
            shadows.initialize(to: SlotShadows())
            let box = configuration.policy.withPolicy(
                limits: limits, MakeCacheCoreBox(timeToLive: timeToLive, shadows: UnsafePointer(shadows)))
            return State(box: box, timeToLive: timeToLive, shadows: shadows, collectsDepartures: onEviction != nil)
        }
        hitsCanWait = configuration.lockFreeHits && stripes.withLock(0) { $0.core.hitsCanWait }
        hitsSkipLogs = hitsCanWait && stripes.withLock(0) { $0.usesShadows }
    }

    /// Where the index files `key`: the hash `value(forHash:…)` takes.
    @inlinable @inline(__always)
    public func indexHash(of key: Key) -> Int { key.cacheIndexHash(seed: indexSeed) }

    @inlinable
    public func value(for key: Key) -> Value? {
        value(forHash: indexHash(of: key), fingerprint: key.cacheFingerprint) { $0 == key }
    }

    /// The value for `key`; `whileLocked` hears the outcome under the stripe's lock (so the
    /// lookup takes the lock even for a hit).
    @inlinable
    public func value(for key: Key, whileLocked: @Sendable (_ hit: Bool) -> Void) -> Value? {
        withoutActuallyEscaping(whileLocked) { hears in
            value(forHash: indexHash(of: key), fingerprint: key.cacheFingerprint, matching: { $0 == key }, whileLocked: hears)
        }
    }

    /// The value whose key hashes to `hash` and has `fingerprint` (which must be what
    /// `indexHash(of:)` and the key's `cacheFingerprint` are; the fingerprint is asked for
    /// only when the cache has several stripes) and satisfies `matches`: a lookup by
    /// something that hashes and compares like a key, without building one (the image
    /// pipeline finds a request's thumbnail this way without allocating its key string).
    /// `whileLocked`, when given, hears the outcome (hit or not) under the stripe's lock,
    /// ordered with every other decision on the stripe (a replay records that order); the
    /// lookup then takes the lock even for a hit.
    @inlinable
    public func value(
        forHash hash: Int, fingerprint: @autoclosure () -> UInt64, matching matches: @Sendable (Key) -> Bool,
        whileLocked: (@Sendable (_ hit: Bool) -> Void)? = nil
    ) -> Value? {
        let now = monotonicNanoseconds()
        let stripe = self.stripe(fingerprint)
        if whileLocked == nil, let value = valueWithoutLock(stripe: stripe, hash: hash, now: now, matching: matches) {
            return value
        }
        let (value, departed) = stripes.withLock(stripe) { state -> (Value?, [Departure]) in
            guard let slot = state.slot(hash: hash, matching: matches) else {
                state.core.recordMiss()
                whileLocked?(false)
                return (nil, [])
            }
            let hit = state.core.lookup(slot, now: now) { state.depart($0, $1) }
            whileLocked?(hit)
            return (hit ? state.value(in: slot) : nil, state.takeDepartures())
        }
        report(departed)
        return value
    }

    /// The value a hit finds without the lock (`LockedStripes.read`), the hit logged for
    /// the next writer; nil when that cannot answer (a miss, an expired entry, a full log,
    /// a policy whose hits cannot wait): the caller then asks under the lock, where the
    /// same request is decided and counted as ever.
    @inlinable @inline(__always)
    func valueWithoutLock(stripe: Int, hash: Int, now: UInt64, matching matches: @Sendable (Key) -> Bool) -> Value? {
        guard hitsCanWait else { return nil }
        return stripes.read(stripe) { state, log, reader -> Value? in
            guard let slot = state.index.find(hash: hash, entering: reader.enter, matches: { matches(state.entries[$0].key) }) else {
                return nil
            }
            let entry = state.entries[slot]
            guard entry.expiry > now else { return nil }
            guard hitsSkipLogs else {
                return log.log(slot, generation: UInt64(entry.generation), at: now) ? entry.value : nil
            }
            // A hit at this time already logged for this entry has done what this one would.
            let shadow = state.shadows.pointee.word(slot)
            let seen = shadow.pointee.load(ordering: .acquiring)
            if seen == now << 1 {
                log.countSkippedHit()
                return entry.value
            }
            guard log.log(slot, generation: UInt64(entry.generation), at: now) else { return nil }
            _ = shadow.pointee.compareExchange(expected: seen, desired: now << 1, ordering: .acquiringAndReleasing)
            return entry.value
        }
    }

    /// Stores `value` under `key` with the given cost, replacing any previous
    /// value. `missCost` is what losing it would cost to repair (for images, the
    /// bytes to download again); only cost-aware policies (GDSF) weigh it.
    /// Returns false when the entry is refused (too large for the per-entry
    /// limit, or declined by the policy's admission). `whileLocked` runs under the stripe's
    /// lock once the entry is in (or refused), ordered with every other decision on the stripe.
    @discardableResult
    @inlinable
    public func insert(
        _ value: Value, for key: Key, cost: Int, missCost: Int = 1, whileLocked: @Sendable () -> Void = {}
    ) -> Bool {
        let now = monotonicNanoseconds()
        let fingerprint = key.cacheFingerprint
        let hash = indexHash(of: key)
        let (stored, departed) = stripes.withLock(stripe { fingerprint }) { state -> (Bool, [Departure]) in
            // A key already held leaves first, unreported (what the core does with a slot
            // inserted again); its entry stays for readers until none can be reading it.
            if let held = state.slot(hash: hash, matching: { $0 == key }) {
                state.box.remove(held)
                _ = state.release(held, .trimmed)
            }
            let stored = state.store(key, value, hash: hash, fingerprint: fingerprint, cost: cost, missCost: missCost, now: now)
            whileLocked()
            return (stored, state.takeDepartures())
        }
        report(departed)
        return stored
    }

    /// The value stored under `key`, or else the one `make` returns, stored at the cost it
    /// gives: the cache-aside loop (look up; on a miss, insert), a hit answered as any hit
    /// and a miss under the stripe's lock with one lookup, counted and decided exactly as that
    /// lookup and insert would be. `make` runs under the key's stripe lock, so it must be
    /// quick and must not use this cache; a value that takes time to produce is looked up
    /// and inserted apart.
    @inlinable
    public func value(for key: Key, orInsert make: @Sendable () -> (value: Value, cost: Int), missCost: Int = 1) -> Value {
        let now = monotonicNanoseconds()
        let hash = indexHash(of: key)
        let stripe = self.stripe { key.cacheFingerprint }
        if let value = valueWithoutLock(stripe: stripe, hash: hash, now: now, matching: { $0 == key }) { return value }
        let (value, departed) = stripes.withLock(stripe) { state -> (Value, [Departure]) in
            if let slot = state.slot(hash: hash, matching: { $0 == key }) {
                let hit = state.core.lookup(slot, now: now) { state.depart($0, $1) }
                if hit { return (state.value(in: slot), state.takeDepartures()) }
            } else {
                state.core.recordMiss()
            }
            let made = make()
            _ = state.store(key, made.value, hash: hash, fingerprint: key.cacheFingerprint, cost: made.cost, missCost: missCost, now: now)
            return (made.value, state.takeDepartures())
        }
        report(departed)
        return value
    }

    /// Whether `key` is held (expired or not), without counting a lookup or telling the policy.
    public func contains(_ key: Key) -> Bool {
        let hash = indexHash(of: key)
        return stripes.withLock(stripe { key.cacheFingerprint }) { $0.slot(hash: hash, matching: { $0 == key }) != nil }
    }

    /// Removes and returns the value for `key`, if present. Not reported as an eviction.
    @discardableResult
    @inlinable
    public func remove(_ key: Key) -> Value? {
        let hash = indexHash(of: key)
        return stripes.withLock(stripe { key.cacheFingerprint }) { state in
            guard let slot = state.slot(hash: hash, matching: { $0 == key }) else { return nil }
            state.box.remove(slot)
            return state.release(slot, .trimmed).value
        }
    }

    /// Drops every entry; each is reported to the eviction handler as trimmed.
    public func removeAll() { respond(to: .purgeAll) }

    /// Evicts in policy order until the total cost is at most `cost` (with stripes,
    /// each stripe down to its share of it).
    public func trim(toCost cost: Int) {
        for index in 0..<stripes.count {
            let target = configuration.stripes.share(of: max(cost, 0), stripe: index)
            let departed = stripes.withLock(index) { state in
                state.box.trim(toCost: target) { state.depart($0, $1) }
                return state.takeDepartures()
            }
            report(departed)
        }
    }

    /// Evicts in policy order down to `fraction` of the cost limit.
    public func trim(toFraction fraction: Double) {
        trim(toCost: Int(Double(configuration.limits.costLimit) * fraction))
    }

    /// Drops entries not used for `age`.
    public func trimIdle(olderThan age: Duration) {
        respond(to: .trimIdle(seconds: Double(age.nanoseconds) / 1e9))
    }

    /// The counters of every stripe, added up.
    public var statistics: CacheStatistics { sum { $0.box.statistics } }
    public var totalCost: Int { sum { $0.box.totalCost } }
    public var count: Int { sum { $0.box.count } }

    /// The stripe a key with this fingerprint lives in; the fingerprint is not worked
    /// out when there is only one.
    @inlinable @inline(__always)
    func stripe(_ fingerprint: () -> UInt64) -> Int {
        configuration.stripes.count == 1 ? 0 : configuration.stripes.stripe(of: fingerprint())
    }

    private func sum<Figure: AdditiveArithmetic & Sendable>(_ figure: (borrowing State) -> Figure) -> Figure {
        (0..<stripes.count).reduce(.zero) { total, index in total + stripes.withLock(index) { figure($0) } }
    }

    /// Tells the handler, once the lock is released. Inlinable so callers iterate a
    /// specialised array: the generic version looked up its element type's metadata on
    /// every call, a seventh of a get-or-set's time.
    @inlinable
    func report(_ departed: [Departure]) {
        guard let onEviction, !departed.isEmpty else { return }
        for departure in departed { onEviction(departure.key, departure.value, departure.reason) }
    }
}

extension MemoryCache: MemoryPressureResponder {
    public func respond(to reaction: MemoryPressureReaction) {
        let now = monotonicNanoseconds()
        for index in 0..<stripes.count {
            let departed = stripes.withLock(index) { state in
                state.box.respond(to: reaction, now: now) { state.depart($0, $1) }
                return state.takeDepartures()
            }
            report(departed)
        }
    }
}
