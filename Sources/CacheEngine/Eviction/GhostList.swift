/// An LRU list of fingerprints of evicted keys with their sizes, for ARC's B1 and B2:
/// O(1) push, removal of any member, and pop of the oldest. Nodes are reused through
/// a free list, so a warm list allocates nothing.
struct GhostList {
    private var fingerprints: [UInt64] = []
    private var sizes: [Int] = []
    private var previous: [Int32] = []
    private var next: [Int32] = []
    private var free: [Int32] = []
    private var index = FingerprintMap()
    private var oldest: Int32 = -1
    private var newest: Int32 = -1
    /// Total size of the remembered keys.
    private(set) var size = 0

    var isEmpty: Bool { oldest < 0 }

    /// Starts loading where a lookup of `fingerprint` begins.
    func prefetch(_ fingerprint: UInt64) { index.prefetch(fingerprint) }

    /// Remembers a key as the newest; a key already remembered moves there.
    mutating func push(_ fingerprint: UInt64, size entrySize: Int) {
        let node: Int32
        if let reused = free.popLast() {
            node = reused
            fingerprints[Int(node)] = fingerprint
            sizes[Int(node)] = entrySize
            previous[Int(node)] = newest
            next[Int(node)] = -1
        } else {
            node = Int32(fingerprints.count)
            fingerprints.append(fingerprint)
            sizes.append(entrySize)
            previous.append(newest)
            next.append(-1)
        }
        if newest >= 0 { next[Int(newest)] = node } else { oldest = node }
        newest = node
        size += entrySize
        // One probe of the index: a key already remembered leaves its older node.
        if let older = index.updateValue(Int(node), for: fingerprint) { unlink(Int32(older)) }
    }

    /// Forgets a key; returns whether it was remembered.
    mutating func remove(_ fingerprint: UInt64) -> Bool {
        guard let node = index.removeValue(for: fingerprint).map(Int32.init) else { return false }
        unlink(node)
        return true
    }

    /// Forgets the oldest key.
    mutating func removeOldest() {
        guard oldest >= 0 else { return }
        index[fingerprints[Int(oldest)]] = nil
        unlink(oldest)
    }

    mutating func removeAll() { self = GhostList() }

    private mutating func unlink(_ node: Int32) {
        let (before, after) = (previous[Int(node)], next[Int(node)])
        if before >= 0 { next[Int(before)] = after } else { oldest = after }
        if after >= 0 { previous[Int(after)] = before } else { newest = before }
        size -= sizes[Int(node)]
        free.append(node)
    }
}
