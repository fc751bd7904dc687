/// S3-FIFO (Yang et al., SOSP 2023), as libCacheSim (the authors' reference)
/// runs it: a small FIFO queue S for new entries (10% of the limits), a main
/// FIFO queue M (the rest), and a ghost queue G of keys recently evicted from
/// S. Each entry has a frequency raised by hits. Shares are of both the cost
/// and the count limit, so the policy works the same whichever limit binds.
///
/// - Insert: a key found in G goes straight to M; any other key goes to S,
///   unless it costs S's whole share or more: then it is not kept at all.
///   Until the first eviction, a new key that finds S full goes to M instead
///   (libCacheSim's S3FIFO.c since December 2024): what arrives while the
///   cache fills stays a little longer, what arrives once it is full leaves sooner.
/// - Evict from M when M is over its share or S is empty, else from S.
/// - Evicting from S goes on until an entry leaves: the oldest entry moves to
///   M (frequency reset) if it was hit at least `moveToMainThreshold` times,
///   else it leaves and its key joins G.
/// - Evicting from M: the oldest entry with a frequency above 0 is reinserted
///   with its frequency (at most 3) lowered by one; the first with frequency 0 leaves.
/// G remembers as many evicted keys as 90% of the limits could hold, by cost and by count.
public struct S3FIFOPolicy: EvictionPolicy {
    public static let name = "S3-FIFO"
    public let limits: CacheLimits
    /// Hits an entry needs while in S to be promoted to M (1 or 2).
    public let moveToMainThreshold: UInt8
    /// S's share of the limits.
    public let smallFraction: Double
    private let smallShare: QueueShare
    private let mainShare: QueueShare
    private let ghostShare: QueueShare
    /// Whether anything has been evicted since the cache was empty.
    private var hasEvicted = false
    @usableFromInline var table = SlotTable()
    @usableFromInline var small = ThreadedList(id: 1)
    @usableFromInline var main = ThreadedList(id: 2)
    private var ghosts = GhostQueue()
    private var fingerprints = SlotFingerprints()

    public init(limits: CacheLimits) { self.init(limits: limits, moveToMainThreshold: 1) }

    public init(limits: CacheLimits, moveToMainThreshold: Int, smallFraction: Double = 0.1) {
        self.limits = limits
        self.moveToMainThreshold = UInt8(min(max(moveToMainThreshold, 1), 3))
        self.smallFraction = smallFraction
        let small = limits.share(smallFraction)
        smallShare = small
        mainShare = limits.remaining(after: small).share(1)
        ghostShare = limits.share(1 - smallFraction)
    }

    @inlinable public var totalCost: Int { small.cost + main.cost }
    @inlinable public var count: Int { small.count + main.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    @inlinable public func prefetch(_ slot: Slot) { table.prefetch(slot, counter: true) }
    /// A new key is looked for among the ghosts.
    public mutating func prefetch(absent fingerprint: UInt64) { ghosts.prefetch(fingerprint) }

    /// Whether a key is remembered in the ghost queue (for tests and reports).
    public func isGhost(_ fingerprint: UInt64) -> Bool { ghosts.contains(fingerprint) }

    /// Whether the entry in `slot` is in the main queue (for tests and reports).
    func isInMain(_ slot: Slot) -> Bool { table.queue(of: slot) == main.id }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        let index = Int(slot)
        if table.counter[index] < 3 { table.counter[index] += 1 }
    }

    public static var hitsCanWait: Bool { true }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        // A returning key leaves G before any eviction makes room, as libCacheSim's lookup does.
        let returning = ghosts.remove(entry.fingerprint)
        // libCacheSim admits a returning key of exactly S's share, a new one only below it.
        guard entry.cost < smallShare.cost || (returning && entry.cost == smallShare.cost) else { return false }
        makeRoom(for: entry.cost, evict: evict)
        let index = Int(entry.slot)
        fingerprints.record(entry)
        table.counter[index] = 0
        if returning || (!hasEvicted && smallShare.isFilled(cost: small.cost, count: small.count)) {
            table.append(entry.slot, cost: entry.cost, to: &main)
        } else {
            table.append(entry.slot, cost: entry.cost, to: &small)
        }
        return true
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &small, &main)
    }

    public mutating func evictNext() -> Slot? {
        hasEvicted = true
        while !small.isEmpty || !main.isEmpty {
            if small.isEmpty || mainShare.isExceeded(cost: main.cost, count: main.count) {
                if let victim = evictFromMain() { return victim }
            } else {
                // S keeps promoting until one of its entries leaves, even past M's share.
                while !small.isEmpty {
                    if let victim = evictFromSmall() { return victim }
                }
            }
        }
        return nil
    }

    /// Promotes the oldest entry of S to M, or evicts it into G.
    private mutating func evictFromSmall() -> Slot? {
        let oldest = small.front
        let index = Int(oldest)
        if table.counter[index] >= moveToMainThreshold {
            table.counter[index] = 0
            table.move(oldest, from: &small, to: &main)
            return nil
        }
        let cost = table.cost(of: oldest)
        table.unlink(oldest, from: &small)
        ghosts.append(fingerprints[oldest], cost: cost, capacity: ghostShare)
        return oldest
    }

    /// Reinserts the oldest entry of M with one less frequency, or evicts it.
    private mutating func evictFromMain() -> Slot? {
        let oldest = main.front
        let index = Int(oldest)
        if table.counter[index] > 0 {
            table.counter[index] -= 1
            table.moveToBack(oldest, in: &main)
            return nil
        }
        table.unlink(oldest, from: &main)
        return oldest
    }

    public mutating func removeAll() {
        table.removeAll()
        small = ThreadedList(id: 1)
        main = ThreadedList(id: 2)
        ghosts.removeAll()
        fingerprints.removeAll()
        hasEvicted = false
    }
}

extension S3FIFOPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<S3FIFOPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<S3FIFOPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
