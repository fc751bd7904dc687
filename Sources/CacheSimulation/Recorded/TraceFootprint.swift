import ImagePipeline

extension SimulationTrace {
    /// What a memory tier needs to never evict: the largest cost of each key, summed.
    public var memoryFootprint: Int {
        var largest = [Int](repeating: 0, count: keyCount)
        for index in 0..<count { largest[Int(keys[index])] = Swift.max(largest[Int(keys[index])], costs[index]) }
        return largest.reduce(0, +)
    }

    /// What a disk tier needs to never evict: the largest size of each disk key, summed.
    public var diskFootprint: Int {
        let diskKeys = hasDetails ? diskKeys : keys
        var largest = [Int](repeating: 0, count: hasDetails ? diskKeyCount : keyCount)
        for index in 0..<count { largest[Int(diskKeys[index])] = Swift.max(largest[Int(diskKeys[index])], sizes[index]) }
        return largest.reduce(0, +)
    }

    /// The trace the offline bounds judge the memory tier on: a key is a
    /// different object in each launch (memory starts cold at every relaunch and
    /// on every device), and nothing else happens between requests.
    public func scopedToLaunches() -> SimulationTrace {
        let restarts = events.contains { $0.kind == .relaunch || $0.kind == .newDevice }
        guard restarts || !events.isEmpty || hasDetails else { return self }
        var scoped = SimulationTrace()
        scoped.reserveCapacity(count)
        var ids: [Int64: TraceKey] = [:]
        var epoch: Int64 = 0
        var nextEvent = 0
        for index in 0..<count {
            while nextEvent < events.count, events[nextEvent].beforeRequest <= index {
                switch events[nextEvent].kind {
                case .relaunch, .newDevice: epoch += 1
                case .memoryWarning, .invalidate: break
                }
                nextEvent += 1
            }
            let scopedKey = epoch << 32 | Int64(keys[index])
            let id = ids[scopedKey] ?? {
                let id = scoped.addKey(fingerprint: fingerprints[Int(keys[index])] &+ UInt64(epoch))
                ids[scopedKey] = id
                return id
            }()
            scoped.append(key: id, cost: costs[index], size: sizes[index], time: times[index])
        }
        return scoped
    }
}
