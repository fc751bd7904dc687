/// Requests ready for simulation: keys interned to dense `Int32` ids before any
/// loop runs, stored as parallel arrays so the loop reads them sequentially.
public struct SimulationTrace: Sendable {
    /// Key id of each request.
    public private(set) var keys: [Slot] = []
    /// Memory cost of each request's entry (decoded bytes).
    public private(set) var costs: [Int] = []
    /// Bytes a miss downloads (encoded size).
    public private(set) var sizes: [Int] = []
    /// Time of each request in nanoseconds from the start of the trace.
    public private(set) var times: [UInt64] = []
    /// Stable fingerprint of each key id (the same the live cache computes).
    public private(set) var fingerprints: [UInt64] = []
    /// Memory warnings, each before the request at its index.
    public private(set) var pressureEvents: [PressureEvent] = []

    public struct PressureEvent: Sendable, Hashable {
        public var beforeRequest: Int
        public var level: MemoryPressureLevel
    }

    public init() {}

    public var count: Int { keys.count }
    public var keyCount: Int { fingerprints.count }

    /// Adds a key id with its fingerprint; returns the id.
    public mutating func addKey(fingerprint: UInt64) -> Slot {
        fingerprints.append(fingerprint)
        return Slot(fingerprints.count - 1)
    }

    public mutating func append(key: Slot, cost: Int, size: Int, time: UInt64) {
        precondition(Int(key) < fingerprints.count, "add the key before requesting it")
        keys.append(key)
        costs.append(cost)
        sizes.append(size)
        times.append(time)
    }

    /// A memory warning between the requests already appended and the next.
    public mutating func appendPressure(_ level: MemoryPressureLevel) {
        pressureEvents.append(PressureEvent(beforeRequest: keys.count, level: level))
    }

    public mutating func reserveCapacity(_ requests: Int) {
        keys.reserveCapacity(requests)
        costs.reserveCapacity(requests)
        sizes.reserveCapacity(requests)
        times.reserveCapacity(requests)
    }

    /// For each request, the index of the next request for the same key, or
    /// `count` when there is none. The input of the offline bounds.
    public func nextUses() -> [Int32] {
        var next = [Int32](repeating: Int32(count), count: count)
        var seen = [Int32](repeating: Int32(count), count: keyCount)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let key = Int(keys[index])
            next[index] = seen[key]
            seen[key] = Int32(index)
        }
        return next
    }
}

/// Interns string keys to dense ids with their stable fingerprints.
public struct KeyInterner: Sendable {
    private var ids: [String: Slot] = [:]

    public init() {}

    public mutating func id(for key: String, in trace: inout SimulationTrace) -> Slot {
        if let id = ids[key] { return id }
        let id = trace.addKey(fingerprint: key.cacheFingerprint)
        ids[key] = id
        return id
    }
}
