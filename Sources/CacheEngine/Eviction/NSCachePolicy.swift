import Foundation

/// The baseline the five apps used: a real Foundation `NSCache`, driven through
/// the policy interface so its hit ratio on a trace is measured, not modelled.
///
/// What swift-corelibs-foundation's `NSCache` does on Linux (read from its
/// source and confirmed by tests): entries sit in a list sorted by cost, and
/// purges remove the cheapest first; reads do not change the order (no
/// recency); among equal costs the newest insertion is evicted first; limits
/// are enforced only inside `setObject`; inserting is O(n) in the entry count.
/// Apple's NSCache on Darwin behaves differently (closer to LRU, and it also
/// evicts under system memory pressure).
///
/// A struct wrapping reference types: copies share one NSCache.
public struct NSCachePolicy: EvictionPolicy {
    public static let name = "NSCache"
    public let limits: CacheLimits
    public private(set) var totalCost = 0
    public private(set) var count = 0
    private let cache = NSCache<NSNumber, SlotBox>()
    private let recorder = EvictionRecorder()
    private var costs: [Int] = []
    private var resident: [Bool] = []
    /// A zero-cost key used only to make NSCache run its purge on demand.
    private let sentinel = NSNumber(value: -1)

    public init(limits: CacheLimits) {
        self.limits = limits
        cache.totalCostLimit = limits.costLimit == .max ? 0 : limits.costLimit
        cache.countLimit = limits.countLimit == .max ? 0 : limits.countLimit
        cache.delegate = recorder
    }

    public func contains(_ slot: Slot) -> Bool {
        Int(slot) < resident.count && resident[Int(slot)]
    }

    /// Hits only reorder or count: they never evict.
    public static var hitsCanWait: Bool { true }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        _ = cache.object(forKey: NSNumber(value: slot))
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        reserve(entry.slot)
        costs[Int(entry.slot)] = entry.cost
        resident[Int(entry.slot)] = true
        totalCost += entry.cost
        count += 1
        cache.setObject(SlotBox(entry.slot), forKey: NSNumber(value: entry.slot), cost: entry.cost)
        var admitted = true
        for victim in drainEvictions() {
            if victim == entry.slot { admitted = false }
            evict(victim)
        }
        return admitted
    }

    public mutating func remove(_ slot: Slot) {
        guard contains(slot) else { return }
        cache.removeObject(forKey: NSNumber(value: slot))
        forget(slot)
    }

    /// Makes NSCache evict exactly its next victim: a zero-cost sentinel plus a
    /// count limit one below the current count triggers its purge loop, which
    /// takes the sentinel and then the entry NSCache ranks lowest.
    public mutating func evictNext() -> Slot? {
        guard count > 0 else { return nil }
        if count == 1, let only = resident.firstIndex(of: true) {
            // A count limit of 0 means "none" to NSCache: the last entry, its only choice, goes by hand.
            cache.removeObject(forKey: NSNumber(value: only))
            _ = recorder.take()
            forget(Slot(only))
            return Slot(only)
        }
        let savedCountLimit = cache.countLimit
        cache.countLimit = count - 1
        cache.setObject(SlotBox(-1), forKey: sentinel, cost: 0)
        cache.countLimit = savedCountLimit
        cache.removeObject(forKey: sentinel)
        return drainEvictions().first
    }

    public mutating func removeAll() {
        cache.removeAllObjects()
        _ = recorder.take()
        costs = []
        resident = []
        totalCost = 0
        count = 0
    }

    /// Slots NSCache evicted since the last call, with the bookkeeping updated.
    private mutating func drainEvictions() -> [Slot] {
        let evicted = recorder.take().filter { $0 >= 0 }
        for slot in evicted { forget(slot) }
        return evicted
    }

    private mutating func forget(_ slot: Slot) {
        resident[Int(slot)] = false
        totalCost -= costs[Int(slot)]
        count -= 1
    }

    private mutating func reserve(_ slot: Slot) {
        let needed = Int(slot) + 1
        guard needed > resident.count else { return }
        let extra = max(needed, resident.count * 2, 16) - resident.count
        costs.append(contentsOf: repeatElement(0, count: extra))
        resident.append(contentsOf: repeatElement(false, count: extra))
    }
}

/// NSCache stores objects; this one names the slot it stands for.
final class SlotBox: NSObject {
    let slot: Slot
    init(_ slot: Slot) { self.slot = slot }
}

/// Hears NSCache's evictions (delivered synchronously inside `setObject`).
private final class EvictionRecorder: NSObject, NSCacheDelegate {
    private var evicted: [Slot] = []

    func cache(_ cache: NSCache<AnyObject, AnyObject>, willEvictObject object: Any) {
        if let box = object as? SlotBox { evicted.append(box.slot) }
    }

    func take() -> [Slot] {
        defer { evicted.removeAll(keepingCapacity: true) }
        return evicted
    }
}

extension NSCachePolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<NSCachePolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<NSCachePolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
