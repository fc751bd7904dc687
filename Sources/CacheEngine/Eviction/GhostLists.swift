/// ARC's B1 and B2: two LRU lists of fingerprints of evicted keys with their sizes, with O(1)
/// push, removal of any member, and removal of each list's oldest. A key is remembered in at
/// most one of them (it leaves its list when it is asked for again, before it can be evicted
/// into the other), so one index serves both: a new key is looked for with one probe, not one
/// per list.
///
/// Each list is a ring in push order, a member that leaves early marked dead in its place, so
/// the oldest members lie in a row: dropping the oldest asks for the index bucket of the member
/// `lookahead` places on, which is then the oldest a few drops later (a linked list gave no
/// address to ask for ahead; BENCHMARKS.md, "Speed against libCacheSim's `cachesim`").
struct GhostLists {
    /// Which list: B1, keys evicted from T1, or B2, from T2.
    enum List: Int {
        case recent = 0, frequent = 1
    }

    /// How many places past the oldest a drop asks for.
    private static let lookahead = 4

    private struct Member {
        var fingerprint: UInt64
        /// `Member.dead` once it has left.
        var size: Int
        static let dead = Int.min
    }

    /// One list in push order: members `start...` of `members` (those before have left), the
    /// first of `members` numbered `base`, so a member's number survives the ring's compaction.
    private struct Ring {
        var members: [Member] = []
        var start = 0
        var base = 0
        var count = 0
        /// Total size of the live members.
        var size = 0

        var nextNumber: Int { base + members.count }

        mutating func append(_ fingerprint: UInt64, size entrySize: Int) {
            members.append(Member(fingerprint: fingerprint, size: entrySize))
            count += 1
            size += entrySize
        }

        /// Marks the member numbered `number` dead.
        mutating func kill(_ number: Int) {
            let position = number - base
            size -= members[position].size
            members[position].size = Member.dead
            count -= 1
        }

        /// The oldest live member's position; only when `count > 0`.
        mutating func oldestPosition() -> Int {
            while members[start].size == Member.dead { start += 1 }
            return start
        }

        /// Drops the dead prefix once it is half the ring, so memory follows what is live;
        /// members' numbers stay.
        mutating func dropDeadPrefix() {
            guard start > 64, start * 2 > members.count else { return }
            members.removeFirst(start)
            base += start
            start = 0
        }

        /// Whether members that left behind the oldest (keys asked for again) outnumber the
        /// live ones: a list whose oldest stays while others come and go would otherwise grow
        /// without bound.
        var isMostlyDead: Bool { members.count - start - count > count + 64 }

        /// Keeps only the live members, in place, numbered afresh from `base`.
        mutating func squeeze() {
            var kept = 0
            for position in start..<members.count where members[position].size != Member.dead {
                members[kept] = members[position]
                kept += 1
            }
            members.removeLast(members.count - kept)
            base += start
            start = 0
        }
    }

    private var rings = (recent: Ring(), frequent: Ring())
    /// Each remembered fingerprint's number in its ring, times two, plus its list.
    private var index = FingerprintMap()

    /// Total size of the keys `list` remembers.
    func size(of list: List) -> Int { list == .recent ? rings.recent.size : rings.frequent.size }

    func isEmpty(_ list: List) -> Bool { (list == .recent ? rings.recent.count : rings.frequent.count) == 0 }

    /// Places the rings hold, live or dead (for tests: memory follows what is live).
    var storedMembers: Int { rings.recent.members.count + rings.frequent.members.count }

    /// Starts loading where a lookup of `fingerprint` begins.
    func prefetch(_ fingerprint: UInt64) { index.prefetch(fingerprint) }

    /// Remembers a key as `list`'s newest; a key already remembered leaves its older place.
    mutating func push(_ fingerprint: UInt64, size entrySize: Int, to list: List) {
        let number = withRing(list) { ring in
            defer { ring.append(fingerprint, size: entrySize) }
            return ring.nextNumber
        }
        // One probe of the index: a key already remembered leaves its older place.
        if let older = index.updateValue(number << 1 | list.rawValue, for: fingerprint) { kill(older) }
    }

    /// Forgets a key; returns the list that remembered it, if one did.
    mutating func remove(_ fingerprint: UInt64) -> List? {
        guard let entry = index.removeValue(for: fingerprint) else { return nil }
        kill(entry)
        return List(rawValue: entry & 1)
    }

    /// Forgets `list`'s oldest key.
    mutating func removeOldest(of list: List) {
        guard !isEmpty(list) else { return }
        let (fingerprint, ahead) = withRing(list) { ring -> (UInt64, UInt64?) in
            let position = ring.oldestPosition()
            let ahead = position + Self.lookahead < ring.members.count ? ring.members[position + Self.lookahead].fingerprint : nil
            let fingerprint = ring.members[position].fingerprint
            ring.kill(ring.base + position)
            ring.start = position + 1
            ring.dropDeadPrefix()
            return (fingerprint, ahead)
        }
        if let ahead { index.prefetch(ahead) }
        _ = index.removeValue(for: fingerprint)
    }

    mutating func removeAll() { self = GhostLists() }

    private mutating func withRing<Result>(_ list: List, _ body: (inout Ring) -> Result) -> Result {
        list == .recent ? body(&rings.recent) : body(&rings.frequent)
    }

    /// Marks dead the member of an index entry (its number times two, plus its list); a list
    /// then mostly dead keeps only its live members, each filed again under its new number.
    private mutating func kill(_ entry: Int) {
        let list = List(rawValue: entry & 1)!
        let squeezed = withRing(list) { ring -> Bool in
            ring.kill(entry >> 1)
            guard ring.isMostlyDead else { return false }
            ring.squeeze()
            return true
        }
        guard squeezed else { return }
        let ring = list == .recent ? rings.recent : rings.frequent
        for (offset, member) in ring.members.enumerated() {
            index.updateValue((ring.base + offset) << 1 | list.rawValue, for: member.fingerprint)
        }
    }
}
