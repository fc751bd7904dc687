/// 2Q (Johnson and Shasha, VLDB 1994), the full version as libCacheSim runs it:
/// new keys enter A1in, a FIFO with 25% of the limits; keys evicted from A1in are
/// remembered in A1out (ghosts, as much as 50% of the limits could hold); a key
/// that comes back while remembered enters Am, an LRU with the rest. Hits in
/// A1in change nothing (a burst of uses is one use); hits in Am refresh.
///
/// - Making room: A1in's oldest leaves (into A1out) while A1in is over its share,
///   else Am's least recently used leaves.
/// - A returning key goes to Am, which then evicts its own least recently used
///   entries to stay within its share.
/// - An entry costing more than A1in's share is not kept.
public struct TwoQPolicy: EvictionPolicy {
    public static let name = "2Q"
    public let limits: CacheLimits
    private let inShare: QueueShare
    private let mainShare: QueueShare
    private let ghostShare: QueueShare
    @usableFromInline var table = SlotTable()
    @usableFromInline var incoming = ThreadedList(id: 1)
    @usableFromInline var main = ThreadedList(id: 2)
    private var ghosts = GhostQueue()
    private var fingerprints = SlotFingerprints()

    public init(limits: CacheLimits) { self.init(limits: limits, inFraction: 0.25, outFraction: 0.5) }

    public init(limits: CacheLimits, inFraction: Double, outFraction: Double) {
        self.limits = limits
        inShare = limits.share(inFraction)
        mainShare = limits.remaining(after: inShare).share(1)
        ghostShare = limits.share(outFraction)
    }

    @inlinable public var totalCost: Int { incoming.cost + main.cost }
    @inlinable public var count: Int { incoming.count + main.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    @inlinable public func prefetch(_ slot: Slot) { table.prefetch(slot) }
    /// A hit in Am unlinks the entry from its neighbours.
    @inlinable public mutating func prefetchNeighbours(_ slot: Slot) { table.prefetchNeighbours(slot) }
    /// A new key is looked for among the ghosts.
    public mutating func prefetch(absent fingerprint: UInt64) { ghosts.prefetch(fingerprint) }

    /// Whether the entry in `slot` is in Am (for tests).
    func isInMain(_ slot: Slot) -> Bool { table.queue(of: slot) == main.id }

    /// Hits only reorder or count: they never evict.
    public static var hitsCanWait: Bool { true }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        if table.queue(of: slot) == main.id { table.moveToBack(slot, in: &main) }
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        // As libCacheSim's lookup: a remembered key leaves A1out before anything else happens.
        let returning = ghosts.remove(entry.fingerprint)
        guard entry.cost <= inShare.cost else { return false }
        makeRoom(for: entry.cost, evict: evict)
        fingerprints.record(entry)
        if returning {
            while mainShare.isExceeded(cost: main.cost + entry.cost, count: main.count + 1), let victim = table.popFront(&main) {
                evict(victim)
            }
            table.append(entry.slot, cost: entry.cost, to: &main)
        } else {
            table.append(entry.slot, cost: entry.cost, to: &incoming)
        }
        return true
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &incoming, &main)
    }

    public mutating func evictNext() -> Slot? {
        if inShare.isExceeded(cost: incoming.cost, count: incoming.count) || main.isEmpty {
            guard let victim = table.popFront(&incoming) else { return nil }
            ghosts.append(fingerprints[victim], cost: table.cost(of: victim), capacity: ghostShare)
            return victim
        }
        return table.popFront(&main)
    }

    public mutating func removeAll() {
        table.removeAll()
        incoming = ThreadedList(id: 1)
        main = ThreadedList(id: 2)
        ghosts.removeAll()
        fingerprints.removeAll()
    }
}

extension TwoQPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<TwoQPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<TwoQPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
