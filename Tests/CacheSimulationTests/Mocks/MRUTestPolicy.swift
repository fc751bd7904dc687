import CacheEngine

/// A policy written outside CacheEngine, as a user would write one: most
/// recently used leaves first. Plain arrays, linear scans: small tests only.
struct MRUTestPolicy: EvictionPolicy {
    static let name = "MRU (test)"
    static let custom = EvictionPolicyKind.custom(CustomEvictionPolicy(name: "mru-test") { MRUTestPolicy(limits: $0) })

    let limits: CacheLimits
    private(set) var totalCost = 0
    /// Resident slots, least recently used first, and their costs.
    private var order: [Slot] = []
    private var costs: [Slot: Int] = [:]

    init(limits: CacheLimits) { self.limits = limits }

    var count: Int { order.count }
    func contains(_ slot: Slot) -> Bool { costs[slot] != nil }

    mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        order.remove(at: order.firstIndex(of: slot)!)
        order.append(slot)
    }

    mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        makeRoom(for: entry.cost, evict: evict)
        order.append(entry.slot)
        costs[entry.slot] = entry.cost
        totalCost += entry.cost
        return true
    }

    mutating func remove(_ slot: Slot) {
        guard let cost = costs.removeValue(forKey: slot) else { return }
        order.remove(at: order.firstIndex(of: slot)!)
        totalCost -= cost
    }

    mutating func evictNext() -> Slot? {
        guard let slot = order.last else { return nil }
        remove(slot)
        return slot
    }

    mutating func removeAll() {
        order.removeAll()
        costs.removeAll()
        totalCost = 0
    }
}
