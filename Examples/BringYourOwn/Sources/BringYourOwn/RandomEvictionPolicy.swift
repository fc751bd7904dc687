import CacheEngine

/// (a) An eviction policy of your own: random replacement, the baseline every
/// policy should beat. Any type conforming to `EvictionPolicy` runs in the live
/// `MemoryCache` and in the simulator once wrapped in `EvictionPolicyKind.custom`.
///
/// Policies see dense integer slots, never keys: the cache (or the simulator)
/// maps keys to slots. Metadata lives in arrays indexed by slot, so nothing is
/// allocated per request once they have grown.
struct RandomEvictionPolicy: EvictionPolicy {
    static let name = "Random"
    /// How the bench builds it for a cache's limits; the name is what reports print.
    static let kind = EvictionPolicyKind.custom(CustomEvictionPolicy(name: "random") { RandomEvictionPolicy(limits: $0) })

    let limits: CacheLimits
    private(set) var totalCost = 0
    /// Resident slots in no particular order, and each slot's place in it (-1: not resident) and cost.
    private var resident: [Slot] = []
    private var place: [Int] = []
    private var costs: [Int] = []
    private var generator = SplitMix64(seed: 0x5EED)

    init(limits: CacheLimits) { self.limits = limits }

    var count: Int { resident.count }

    func contains(_ slot: Slot) -> Bool { Int(slot) < place.count && place[Int(slot)] >= 0 }

    /// Random replacement ignores hits.
    mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {}

    mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        makeRoom(for: entry.cost, evict: evict)  // evictNext until both limits fit
        let index = Int(entry.slot)
        if index >= place.count {
            place.append(contentsOf: repeatElement(-1, count: index + 1 - place.count))
            costs.append(contentsOf: repeatElement(0, count: index + 1 - costs.count))
        }
        place[index] = resident.count
        costs[index] = entry.cost
        resident.append(entry.slot)
        totalCost += entry.cost
        return true
    }

    mutating func remove(_ slot: Slot) {
        let index = Int(slot), position = place[index]
        let last = resident.removeLast()
        if position < resident.count {
            resident[position] = last
            place[Int(last)] = position
        }
        place[index] = -1
        totalCost -= costs[index]
    }

    mutating func evictNext() -> Slot? {
        guard !resident.isEmpty else { return nil }
        let victim = resident[Int(generator.next() % UInt64(resident.count))]
        remove(victim)
        return victim
    }

    /// Forgets everything, its random state too: a restarted cache behaves as a new one.
    mutating func removeAll() {
        self = RandomEvictionPolicy(limits: limits)
    }
}
