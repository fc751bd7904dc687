/// W-TinyLFU as libCacheSim builds it (`WTinyLFU.c` with its default SLRU main
/// cache), kept beside Caffeine's design (`WTinyLFUPolicy`) so figures can be
/// compared with libCacheSim's cell for cell. How it differs from Caffeine's:
///
/// - The window (1% of the limits, rounded down) is not bounded by itself: new
///   entries gather there until the cache is full, and making room drains the
///   window first. Its oldest entry moves to main while main has room; once
///   main is full, it duels main's next victim, and the one with the lower
///   estimate leaves (main's on a tie).
/// - Main is a segmented LRU of 1:4 (probation, protected). A new entry goes
///   to the first segment with room; a hit in probation promotes to protected,
///   whose oldest entries cool back into probation, whose oldest then leave.
/// - Frequencies are a `CountingBloomFilter` over the main size, raised by
///   insertions, window departures and main hits (window hits are not
///   counted), and halved after every 32 × main-size main hits.
/// - An entry larger than the window, or than probation, is never kept, so a
///   cache under 100 entries keeps nothing.
///
/// libCacheSim has one size; here every share is taken of the cost and of the
/// count limit alike. The filter is sized, and decays, by main's share of the
/// count limit, in entries; without a count limit, by its share of the cost
/// limit, as libCacheSim sizes it by bytes in byte mode.
public struct LibCacheSimWTinyLFUPolicy: EvictionPolicy {
    public static let name = "W-TinyLFU (libCacheSim)"
    public let limits: CacheLimits
    private let windowShare: QueueShare
    private let mainShare: QueueShare
    private let probationShare: QueueShare
    private let protectedShare: QueueShare
    private let decayPeriod: Int
    private var mainHits = 0
    @usableFromInline var table = SlotTable()
    @usableFromInline var window = ThreadedList(id: 1)
    @usableFromInline var probation = ThreadedList(id: 2)
    @usableFromInline var protected = ThreadedList(id: 3)
    private var frequencies: CountingBloomFilter
    /// Whether the look-ahead hints load counters (`CountingBloomFilter.isWorthPrefetching`).
    private let prefetchesCounters: Bool
    private var fingerprints = SlotFingerprints()

    public init(limits: CacheLimits) {
        self.limits = limits
        // libCacheSim's integer arithmetic: each share rounds down, main gets the rest of the window's.
        func share(of limit: Int, _ fraction: Double) -> Int { limit == .max ? .max : Int(Double(limit) * fraction) }
        func rest(of limit: Int, after part: Int) -> Int { limit == .max ? .max : limit - part }
        windowShare = QueueShare(cost: share(of: limits.costLimit, 0.01), count: share(of: limits.countLimit, 0.01))
        mainShare = QueueShare(
            cost: rest(of: limits.costLimit, after: windowShare.cost), count: rest(of: limits.countLimit, after: windowShare.count))
        probationShare = QueueShare(cost: share(of: mainShare.cost, 1.0 / 5), count: share(of: mainShare.count, 1.0 / 5))
        protectedShare = QueueShare(cost: share(of: mainShare.cost, 4.0 / 5), count: share(of: mainShare.count, 4.0 / 5))
        let mainSize = mainShare.count != .max ? mainShare.count : mainShare.cost
        frequencies = CountingBloomFilter(entries: mainSize)
        prefetchesCounters = frequencies.isWorthPrefetching
        let (period, overflow) = mainSize.multipliedReportingOverflow(by: 32)
        decayPeriod = overflow ? .max : period
    }

    @inlinable public var totalCost: Int { window.cost + probation.cost + protected.cost }
    @inlinable public var count: Int { window.count + probation.count + protected.count }
    private var mainCost: Int { probation.cost + protected.cost }
    private var mainCount: Int { probation.count + protected.count }

    @inlinable public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    /// A hit reads the slot's entry, and in main its fingerprint, to count it.
    public func prefetch(_ slot: Slot) {
        table.prefetch(slot)
        if prefetchesCounters { fingerprints.prefetch(slot) }
    }

    /// A hit unlinks the entry from its neighbours in its segment, and in main raises its counters.
    public mutating func prefetchNeighbours(_ slot: Slot) {
        table.prefetchNeighbours(slot)
        if prefetchesCounters, table.queue(of: slot) > window.id { frequencies.prefetch(fingerprints[slot]) }
    }

    /// A miss raises the new key's counters, and making room weighs the window's oldest
    /// against main's victim by theirs.
    public mutating func prefetch(absent fingerprint: UInt64) {
        guard prefetchesCounters else { return }
        frequencies.prefetch(fingerprint)
        if !window.isEmpty { frequencies.prefetch(fingerprints[window.front]) }
        if let victim = mainVictim { frequencies.prefetch(fingerprints[victim]) }
    }

    /// Which part holds the entry in `slot` (for tests): "window", "probation" or "protected".
    func segment(of slot: Slot) -> String? {
        switch table.queue(of: slot) {
        case window.id: "window"
        case probation.id: "probation"
        case protected.id: "protected"
        default: nil
        }
    }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        switch table.queue(of: slot) {
        case window.id:
            table.moveToBack(slot, in: &window)
            return
        case protected.id:
            table.moveToBack(slot, in: &protected)
        default:
            table.move(slot, from: &probation, to: &protected)
            while protectedShare.isExceeded(cost: protected.cost, count: protected.count), protected.front != slot {
                table.move(protected.front, from: &protected, to: &probation)
                while probationShare.isExceeded(cost: probation.cost, count: probation.count), let victim = table.popFront(&probation) {
                    evict(victim)
                }
            }
        }
        frequencies.add(fingerprints[slot])
        mainHits += 1
        if mainHits >= decayPeriod {
            mainHits = 0
            frequencies.decay()
        }
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        guard entry.cost <= limits.costLimit, limits.countLimit >= 1,
            Self.fits(cost: entry.cost, into: windowShare), Self.fits(cost: entry.cost, into: probationShare)
        else { return false }
        table.reserve(entry.slot)
        fingerprints.record(entry)
        while limits.isOver(cost: totalCost, count: count, adding: entry.cost), count > 0 {
            makeRoomOnce(evict: evict)
        }
        table.append(entry.slot, cost: entry.cost, to: &window)
        frequencies.add(entry.fingerprint)
        return true
    }

    /// One call of libCacheSim's `WTinyLFU_evict`: moves window entries into main
    /// while main has room, then evicts one entry, from the window or from main.
    private mutating func makeRoomOnce(evict: (Slot) -> Void) {
        while !window.isEmpty {
            let candidate = window.front
            let cost = table.cost(of: candidate)
            defer { frequencies.add(fingerprints[candidate]) }
            if mainCost + cost <= mainShare.cost, mainCount + 1 <= mainShare.count {
                table.unlink(candidate, from: &window)
                admitToMain(candidate, cost: cost, evict: evict)
                continue
            }
            table.unlink(candidate, from: &window)
            if let victim = mainVictim, frequencies.estimate(fingerprints[candidate]) > frequencies.estimate(fingerprints[victim]) {
                evictFromMain(victim, evict: evict)
                admitToMain(candidate, cost: cost, evict: evict)
            } else {
                evict(candidate)
            }
            return
        }
        if let victim = mainVictim { evictFromMain(victim, evict: evict) }
    }

    /// SLRU's insert: the first segment with room, else probation after evicting from main.
    private mutating func admitToMain(_ slot: Slot, cost: Int, evict: (Slot) -> Void) {
        if Self.fits(cost: probation.cost + cost, count: probation.count + 1, into: probationShare) {
            table.append(slot, cost: cost, to: &probation)
        } else if Self.fits(cost: protected.cost + cost, count: protected.count + 1, into: protectedShare) {
            table.append(slot, cost: cost, to: &protected)
        } else {
            while !Self.fits(cost: mainCost + cost, count: mainCount + 1, into: mainShare), let victim = mainVictim {
                evictFromMain(victim, evict: evict)
            }
            table.append(slot, cost: cost, to: &probation)
        }
    }

    /// SLRU's victim: the oldest entry of the lowest segment that holds any.
    private var mainVictim: Slot? {
        if !probation.isEmpty { return probation.front }
        return protected.isEmpty ? nil : protected.front
    }

    private mutating func evictFromMain(_ victim: Slot, evict: (Slot) -> Void) {
        remove(victim)
        evict(victim)
    }

    private static func fits(cost: Int, count: Int = 1, into share: QueueShare) -> Bool {
        cost <= share.cost && count <= share.count
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &window, &probation, &protected)
    }

    /// For trims: the window's oldest first, then main's victim.
    public mutating func evictNext() -> Slot? {
        if let oldest = table.popFront(&window) { return oldest }
        guard let victim = mainVictim else { return nil }
        remove(victim)
        return victim
    }

    public mutating func removeAll() {
        table.removeAll()
        window = ThreadedList(id: 1)
        probation = ThreadedList(id: 2)
        protected = ThreadedList(id: 3)
        frequencies.removeAll()
        fingerprints.removeAll()
        mainHits = 0
    }
}

extension LibCacheSimWTinyLFUPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<LibCacheSimWTinyLFUPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<LibCacheSimWTinyLFUPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
