import CacheEngine
import CacheSimulation

/// (b) A cache of your own, behind `ReplayableCache`: the one many apps hand-roll,
/// a dictionary that holds at most `countLimit` images, empties itself when it is
/// full and on every memory warning. `CacheReplay` drives it as the app would.
struct HandRolledCache: ReplayableCache {
    let countLimit: Int
    private var images: [String: Int] = [:]

    init(countLimit: Int) { self.countLimit = countLimit }

    func lookup(_ key: String) -> Bool { images[key] != nil }

    mutating func store(_ key: String, cost: Int, downloadedBytes: Int) -> Bool {
        if images.count >= countLimit { images.removeAll(keepingCapacity: true) }
        images[key] = cost
        return true
    }

    mutating func memoryWarning(_ level: MemoryPressureLevel) { images.removeAll(keepingCapacity: true) }
    mutating func removeAll() { images.removeAll() }
}
