/// What one thread can do with an exact least-recently-used cache on this machine: no lock,
/// no allocation per insert, no reference counting, the list as 32-bit links in flat arrays
/// and the index an open-addressing table (linear probing, a multiplicative hash, deletion by
/// shifting back) over `Int` keys. Not a cache anyone should share between threads: the
/// bound the thread-safe caches are measured against, beside the `Dictionary` loop.
final class PlainLRU {
    /// Each bucket holds a node + 1; 0 is empty.
    private let buckets: UnsafeMutablePointer<Int32>
    private let mask: Int
    private let keys: UnsafeMutablePointer<Int>
    private let values: UnsafeMutablePointer<Int>
    private let previous: UnsafeMutablePointer<Int32>
    private let next: UnsafeMutablePointer<Int32>
    private var newest: Int32 = -1
    private var oldest: Int32 = -1
    private var used: Int32 = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0 && capacity < Int(Int32.max) / 2)
        self.capacity = capacity
        var size = 1
        while size < capacity * 2 { size <<= 1 }
        mask = size - 1
        buckets = .allocate(capacity: size)
        buckets.initialize(repeating: 0, count: size)
        keys = .allocate(capacity: capacity)
        values = .allocate(capacity: capacity)
        previous = .allocate(capacity: capacity)
        next = .allocate(capacity: capacity)
    }

    deinit {
        buckets.deallocate()
        keys.deallocate()
        values.deallocate()
        previous.deallocate()
        next.deallocate()
    }

    /// The value under `key`, or `value` stored under it (evicting the least recently used).
    func value(for key: Int, orInsert value: Int) -> Int {
        var bucket = home(key)
        while buckets[bucket] != 0 {
            let node = buckets[bucket] - 1
            if keys[Int(node)] == key {
                if node != newest {
                    unlink(node)
                    pushNewest(node)
                }
                return values[Int(node)]
            }
            bucket = (bucket + 1) & mask
        }
        let node: Int32
        if Int(used) < capacity {
            node = used
            used += 1
        } else {
            node = oldest
            unlink(node)
            unindex(keys[Int(node)])
            bucket = home(key)
            while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
        }
        keys[Int(node)] = key
        values[Int(node)] = value
        buckets[bucket] = node + 1
        pushNewest(node)
        return value
    }

    private func home(_ key: Int) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: Int64(key)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private func unlink(_ node: Int32) {
        let before = previous[Int(node)], after = next[Int(node)]
        if before >= 0 { next[Int(before)] = after } else { newest = after }
        if after >= 0 { previous[Int(after)] = before } else { oldest = before }
    }

    private func pushNewest(_ node: Int32) {
        previous[Int(node)] = -1
        next[Int(node)] = newest
        if newest >= 0 { previous[Int(newest)] = node } else { oldest = node }
        newest = node
    }

    /// Empties `key`'s bucket and shifts back the entries after it that probed past it.
    private func unindex(_ key: Int) {
        var hole = home(key)
        while keys[Int(buckets[hole] - 1)] != key { hole = (hole + 1) & mask }
        var bucket = hole
        while true {
            bucket = (bucket + 1) & mask
            guard buckets[bucket] != 0 else { break }
            // The entry may move into the hole when its home is not cyclically in (hole, bucket].
            let distanceToHome = (bucket - home(keys[Int(buckets[bucket] - 1)])) & mask
            if distanceToHome >= (bucket - hole) & mask {
                buckets[hole] = buckets[bucket]
                hole = bucket
            }
        }
        buckets[hole] = 0
    }
}
