/// W-TinyLFU as Caffeine 2.6 ships it (Einziger et al., 2017), the version Debian
/// packages and CI checks it against (`scripts/crosscheck-caffeine`): an LRU window
/// in front of a segmented-LRU main area, new entries admitted to main by a frequency
/// duel. Shares are of both the cost and the count limit, so the policy works the
/// same whichever limit binds.
///
/// - The window holds what is left of a limit after 99% of it (one entry of 100,
///   two of 163); protected holds 80% of the rest; probation what protected does not.
/// - New entries enter the window; entries the window pushes out join probation's
///   newest end as candidates.
/// - A hit in probation promotes to protected (unless the entry alone is larger than
///   protected); protected overflow demotes its oldest entries to probation.
/// - While over a limit, the newest candidate duels probation's oldest entry (the
///   victim): the victim leaves when the candidate's estimated frequency is higher;
///   otherwise the candidate leaves, except that a candidate estimated above 5 is let
///   in one time in 128 (Caffeine's guard against a key whose hash collides with a
///   hot one). With no candidates left, victims leave from probation, then protected,
///   then the window.
/// - Frequencies come from a `FrequencySketch` sized when the cache is first half full:
///   for the entry count a count limit names, or for the entries held when only a
///   cost limit binds (as Caffeine sizes a weighted cache's). Until then hits are not
///   recorded at all, as Caffeine skips its read buffer then.
public struct WTinyLFUPolicy: EvictionPolicy {
    public static let name = "W-TinyLFU"
    public let limits: CacheLimits
    @usableFromInline var table = SlotTable()
    @usableFromInline var window = ThreadedList(id: 1)
    @usableFromInline var probation = ThreadedList(id: 2)
    @usableFromInline var protected = ThreadedList(id: 3)
    private var sketch = FrequencySketch()
    private var fingerprints = SlotFingerprints()
    /// Decides the one-in-128 admissions; seeded, so a run is reproducible.
    private var random = SplitMix64(seed: 0x5EED_CAFE)
    private let windowShare: QueueShare
    private let protectedShare: QueueShare

    public init(limits: CacheLimits) {
        self.limits = limits
        func windowPart(_ limit: Int) -> Int { limit == .max ? .max : limit - Int(Double(limit) * 0.99) }
        func protectedPart(_ limit: Int, _ window: Int) -> Int { limit == .max ? .max : Int(Double(limit - window) * 0.8) }
        windowShare = QueueShare(cost: windowPart(limits.costLimit), count: windowPart(limits.countLimit))
        protectedShare = QueueShare(
            cost: protectedPart(limits.costLimit, windowShare.cost), count: protectedPart(limits.countLimit, windowShare.count))
    }

    @inlinable public var totalCost: Int { window.cost + probation.cost + protected.cost }
    @inlinable public var count: Int { window.count + probation.count + protected.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    @inlinable public func prefetch(_ slot: Slot) { table.prefetch(slot) }
    /// A hit unlinks the entry from its neighbours in its segment.
    @inlinable public mutating func prefetchNeighbours(_ slot: Slot) { table.prefetchNeighbours(slot) }

    /// Hits only reorder or count: they never evict.
    public static var hitsCanWait: Bool { true }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        // Until the cache is first half full Caffeine does not record reads at all: no
        // count, no reordering, no promotion (its read buffer is skipped).
        guard sketch.isSized else { return }
        sketch.increment(fingerprints[slot])
        switch table.queue(of: slot) {
        case window.id:
            table.moveToBack(slot, in: &window)
        case probation.id:
            guard !protectedShare.isExceeded(cost: table.cost(of: slot), count: 1) else { return }
            table.move(slot, from: &probation, to: &protected)
            while protectedShare.isExceeded(cost: protected.cost, count: protected.count), let demoted = table.popFront(&protected) {
                table.append(demoted, cost: table.cost(of: demoted), to: &probation)
            }
        default:
            table.moveToBack(slot, in: &protected)
        }
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        sizeSketchIfHalfFull(adding: entry.cost)
        table.reserve(entry.slot)
        fingerprints.record(entry)
        sketch.increment(entry.fingerprint)
        table.append(entry.slot, cost: entry.cost, to: &window)
        var candidates = 0
        while windowShare.isExceeded(cost: window.cost, count: window.count), let oldest = table.popFront(&window) {
            table.append(oldest, cost: table.cost(of: oldest), to: &probation)
            candidates += 1
        }
        var admitted = true
        evictFromMain(candidates: candidates) { victim in
            if victim == entry.slot { admitted = false }
            evict(victim)
        }
        return admitted
    }

    /// Caffeine sizes its sketch when the cache first reaches half its maximum.
    private mutating func sizeSketchIfHalfFull(adding cost: Int) {
        if limits.countLimit != .max {
            if count >= limits.countLimit / 2 { sketch.ensureCapacity(limits.countLimit) }
        } else if limits.costLimit != .max, totalCost >= limits.costLimit / 2 {
            sketch.ensureCapacity(count + 1)
        }
    }

    /// Duels the newest candidates with probation's oldest entries until the cache is
    /// within its limits; `evict` hears each loser.
    private mutating func evictFromMain(candidates: Int, evict: (Slot) -> Void) {
        var candidates = candidates
        var victim = probation.front, candidate = probation.back
        var victimQueue = probation.id
        while limits.isOver(cost: totalCost, count: count - 1, adding: 0) {
            if candidates == 0 { candidate = SlotTable.none }
            if candidate == SlotTable.none, victim == SlotTable.none {
                // Probation is spent: victims from protected, then from the window.
                guard victimQueue != window.id else { return }
                victimQueue = victimQueue == probation.id ? protected.id : window.id
                victim = victimQueue == protected.id ? protected.front : window.front
                continue
            }
            if victim == SlotTable.none || candidate == victim {
                let loser = candidate
                candidate = table.before(candidate)
                if loser == victim { victim = SlotTable.none }
                candidates -= 1
                evictResident(loser, evict)
                continue
            }
            if candidate == SlotTable.none {
                let loser = victim
                victim = table.after(victim)
                evictResident(loser, evict)
                continue
            }
            candidates -= 1
            if table.cost(of: candidate) <= limits.costLimit, admits(candidate, over: victim) {
                let loser = victim
                victim = table.after(victim)
                evictResident(loser, evict)
                candidate = table.before(candidate)
            } else {
                let loser = candidate
                candidate = table.before(candidate)
                evictResident(loser, evict)
            }
        }
    }

    /// Whether the candidate is worth more than the victim by the sketch.
    private mutating func admits(_ candidate: Slot, over victim: Slot) -> Bool {
        let candidateFrequency = sketch.frequency(fingerprints[candidate])
        if candidateFrequency > sketch.frequency(fingerprints[victim]) { return true }
        if candidateFrequency <= 5 { return false }
        return random.next() & 127 == 0
    }

    private mutating func evictResident(_ slot: Slot, _ evict: (Slot) -> Void) {
        table.unlink(slot, fromWhicheverOf: &window, &probation, &protected)
        evict(slot)
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &window, &probation, &protected)
    }

    /// For trims: probation's oldest, then protected's, then the window's.
    public mutating func evictNext() -> Slot? {
        table.popFront(&probation) ?? table.popFront(&protected) ?? table.popFront(&window)
    }

    public mutating func removeAll() {
        table.removeAll()
        window = ThreadedList(id: 1)
        probation = ThreadedList(id: 2)
        protected = ThreadedList(id: 3)
        sketch = FrequencySketch()
        fingerprints.removeAll()
    }
}

extension WTinyLFUPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<WTinyLFUPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<WTinyLFUPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
