import Foundation

extension DiskCache {
    /// File names ↔ slots of the shared index model, plus counters.
    struct Index {
        var model: DiskIndexModel
        var slots: [String: Slot] = [:]
        var names: [String?] = []
        var freeSlots: [Slot] = []
        var sequence: UInt64 = 0
        var statistics = DiskCacheStatistics()
        var trimScheduled = false
        /// Set by `DiskCache.close()`: reads miss and writes fail from then on.
        var isClosed = false

        /// Whether a trim should be scheduled now (at most one is pending).
        mutating func claimTrim() -> Bool {
            guard model.needsTrim, !trimScheduled else { return false }
            trimScheduled = true
            return true
        }

        mutating func nextSequence() -> UInt64 {
            sequence += 1
            return sequence
        }

        /// Marks an entry used; false if it is not in the index.
        mutating func touch(_ name: String) -> Bool {
            guard let slot = slots[name] else { return false }
            model.recordAccess(slot)
            return true
        }

        /// Adds an entry, or replaces the one of that name (the model's rule for a slot it holds).
        mutating func add(_ name: String, bytes: Int) {
            let slot = slots[name] ?? freeSlots.popLast() ?? Slot(names.count)
            if Int(slot) == names.count { names.append(name) } else { names[Int(slot)] = name }
            slots[name] = slot
            model.insert(slot, bytes: bytes)
            statistics.writes += 1
        }

        /// Removes an entry from the index; false if it was not there.
        mutating func remove(_ name: String) -> Bool {
            guard let slot = slots[name] else { return false }
            model.remove(slot)
            release(slot)
            return true
        }

        mutating func trim() -> [String] {
            var victims: [Slot] = []
            model.trim { victims.append($0) }
            let evicted = victims.compactMap { names[Int($0)] }
            victims.forEach { release($0) }
            statistics.evictions += victims.count
            return evicted
        }

        mutating func removeAll() -> [String] {
            let all = Array(slots.keys)
            model.removeAll()
            slots = [:]
            names = []
            freeSlots = []
            return all
        }

        private mutating func release(_ slot: Slot) {
            if let name = names[Int(slot)] { slots[name] = nil }
            names[Int(slot)] = nil
            freeSlots.append(slot)
        }
    }
}
