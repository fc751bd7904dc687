/// W-TinyLFU (Einziger et al., 2017; as in Caffeine): a small LRU window (1% of
/// the limits) in front of a segmented-LRU main area (probation, and a
/// protected segment of 80% of main), with TinyLFU admission. Shares are of
/// both the cost and the count limit, so the policy works the same whichever
/// limit binds.
///
/// - Every access is counted in a `FrequencySketch`.
/// - New entries enter the window; entries leaving the window join probation.
/// - A hit in probation promotes to protected; protected overflow demotes its
///   oldest entry back to probation.
/// - When over the limit, the newest probation entry (the candidate that just
///   left the window) duels the oldest (the victim): the one with the lower
///   estimated frequency is evicted, the victim on ties losing only if the
///   candidate is strictly more frequent.
public struct WTinyLFUPolicy: EvictionPolicy {
    public static let name = "W-TinyLFU"
    public let limits: CacheLimits
    public let windowFraction: Double
    public let protectedFraction: Double
    private var table = SlotTable()
    private var window = SlotList(id: 1)
    private var probation = SlotList(id: 2)
    private var protected = SlotList(id: 3)
    private var sketch: FrequencySketch
    private var fingerprints: [UInt64] = []
    private let windowShare: QueueShare
    private let protectedShare: QueueShare

    public init(limits: CacheLimits) { self.init(limits: limits, windowFraction: 0.01) }

    public init(limits: CacheLimits, windowFraction: Double, protectedFraction: Double = 0.8) {
        self.limits = limits
        self.windowFraction = windowFraction
        self.protectedFraction = protectedFraction
        let expectedEntries = limits.countLimit == .max ? 1024 : min(limits.countLimit, 1 << 22)
        sketch = FrequencySketch(width: expectedEntries)
        let window = limits.share(windowFraction)
        windowShare = window
        protectedShare = limits.remaining(after: window).share(protectedFraction)
    }

    public var totalCost: Int { window.cost + probation.cost + protected.cost }
    public var count: Int { window.count + probation.count + protected.count }

    public func contains(_ slot: Slot) -> Bool { table.queue(of: slot) != 0 }
    public func prefetch(_ slot: Slot) { table.prefetch(slot) }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        sketch.increment(fingerprints[Int(slot)])
        switch table.queue(of: slot) {
        case window.id:
            table.moveToBack(slot, in: &window)
        case probation.id:
            table.move(slot, from: &probation, to: &protected)
            while protectedShare.isExceeded(cost: protected.cost, count: protected.count), protected.front != slot {
                table.move(protected.front, from: &protected, to: &probation)
            }
        default:
            table.moveToBack(slot, in: &protected)
        }
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        table.reserve(entry.slot)
        if fingerprints.count < table.capacity {
            fingerprints.append(contentsOf: repeatElement(0, count: table.capacity - fingerprints.count))
        }
        growSketchIfNeeded()
        fingerprints[Int(entry.slot)] = entry.fingerprint
        sketch.increment(entry.fingerprint)
        table.append(entry.slot, cost: entry.cost, to: &window)
        while windowShare.isExceeded(cost: window.cost, count: window.count), window.front != SlotTable.none {
            table.move(window.front, from: &window, to: &probation)
        }
        var admitted = true
        while limits.isOver(cost: totalCost, count: count - 1, adding: 0), let victim = evictNext() {
            if victim == entry.slot { admitted = false }
            evict(victim)
        }
        return admitted
    }

    public mutating func remove(_ slot: Slot) {
        table.unlink(slot, fromWhicheverOf: &window, &probation, &protected)
    }

    public mutating func evictNext() -> Slot? {
        if probation.isEmpty {
            if let oldest = table.popFront(&protected) { return oldest }
            return table.popFront(&window)
        }
        let victim = probation.front, candidate = probation.back
        guard victim != candidate else {
            table.unlink(victim, from: &probation)
            return victim
        }
        let loser =
            sketch.frequency(fingerprints[Int(candidate)]) > sketch.frequency(fingerprints[Int(victim)])
            ? victim : candidate
        table.unlink(loser, from: &probation)
        return loser
    }


    /// Keeps the sketch at least twice as wide as the entry count, as Caffeine
    /// sizes it to the maximum size; widening resets the counts.
    private mutating func growSketchIfNeeded() {
        if count * 2 > sketch.width { sketch = FrequencySketch(width: sketch.width * 2) }
    }

    public mutating func removeAll() {
        table.removeAll()
        window = SlotList(id: 1)
        probation = SlotList(id: 2)
        protected = SlotList(id: 3)
        sketch.removeAll()
        fingerprints = []
    }
}
