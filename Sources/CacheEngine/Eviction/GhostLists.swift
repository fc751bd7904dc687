/// ARC's B1 and B2: two LRU lists of fingerprints of evicted keys with their sizes, with O(1)
/// push, removal of any member, and pop of each list's oldest. A key is remembered in at most
/// one of them (it leaves its list when it is asked for again, before it can be evicted into
/// the other), so one index serves both: a new key is looked for with one probe, not one per
/// list. Nodes are reused through a free list, so warm lists allocate nothing.
struct GhostLists {
    /// Which list: B1, keys evicted from T1, or B2, from T2.
    enum List: Int {
        case recent = 0, frequent = 1
    }

    private struct Ends {
        var oldest: Int32 = -1
        var newest: Int32 = -1
        /// Total size of the list's keys.
        var size = 0
    }

    private var fingerprints: [UInt64] = []
    private var sizes: [Int] = []
    private var previous: [Int32] = []
    private var next: [Int32] = []
    private var free: [Int32] = []
    /// Each remembered fingerprint's node, times two, plus its list.
    private var index = FingerprintMap()
    private var ends = (recent: Ends(), frequent: Ends())

    /// Total size of the keys `list` remembers.
    func size(of list: List) -> Int { list == .recent ? ends.recent.size : ends.frequent.size }

    func isEmpty(_ list: List) -> Bool { (list == .recent ? ends.recent.oldest : ends.frequent.oldest) < 0 }

    /// Starts loading where a lookup of `fingerprint` begins.
    func prefetch(_ fingerprint: UInt64) { index.prefetch(fingerprint) }

    /// Remembers a key as `list`'s newest; a key already remembered leaves its older node.
    mutating func push(_ fingerprint: UInt64, size entrySize: Int, to list: List) {
        let node: Int32
        let newest = list == .recent ? ends.recent.newest : ends.frequent.newest
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
        withEnds(of: list) { ends in
            if ends.newest < 0 { ends.oldest = node }
            ends.newest = node
            ends.size += entrySize
        }
        if newest >= 0 { next[Int(newest)] = node }
        // One probe of the index: a key already remembered leaves its older node.
        if let older = index.updateValue(Int(node) << 1 | list.rawValue, for: fingerprint) { unlink(older) }
    }

    /// Forgets a key; returns the list that remembered it, if one did.
    mutating func remove(_ fingerprint: UInt64) -> List? {
        guard let entry = index.removeValue(for: fingerprint) else { return nil }
        unlink(entry)
        return List(rawValue: entry & 1)
    }

    /// Forgets `list`'s oldest key.
    mutating func removeOldest(of list: List) {
        let oldest = list == .recent ? ends.recent.oldest : ends.frequent.oldest
        guard oldest >= 0 else { return }
        _ = index.removeValue(for: fingerprints[Int(oldest)])
        unlink(Int(oldest) << 1 | list.rawValue)
    }

    mutating func removeAll() { self = GhostLists() }

    private mutating func withEnds(of list: List, _ body: (inout Ends) -> Void) {
        if list == .recent { body(&ends.recent) } else { body(&ends.frequent) }
    }

    /// Unlinks the node of an index entry (node times two, plus its list).
    private mutating func unlink(_ entry: Int) {
        let node = Int32(entry >> 1)
        let (before, after) = (previous[Int(node)], next[Int(node)])
        if before >= 0 { next[Int(before)] = after }
        if after >= 0 { previous[Int(after)] = before }
        let size = sizes[Int(node)]
        withEnds(of: List(rawValue: entry & 1)!) { ends in
            if before < 0 { ends.oldest = after }
            if after < 0 { ends.newest = before }
            ends.size -= size
        }
        free.append(node)
    }
}
