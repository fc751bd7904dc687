/// LIRS (Jiang and Zhang, SIGMETRICS 2002) as libCacheSim runs it with sizes.
///
/// Three recency stacks: S holds LIR entries (reused within the cache's reach)
/// and HIR entries seen recently, resident or not; Q holds the resident HIR
/// entries, 1% of the cache; NH orders S's non-resident entries so S can be
/// bounded at twice the cache.
///
/// - A new key is LIR while the LIR share (99%) has room, else HIR in S and Q.
///   A new key larger than Q's share is refused, as in libCacheSim.
/// - A hit on an LIR entry prunes S (HIR entries below the oldest LIR leave S).
/// - A hit on an HIR entry in S makes it LIR, demoting S's oldest LIR into Q
///   until the LIR share has room; one in Q only goes to the top of S as HIR.
/// - A miss on a key S still remembers makes it LIR.
/// - Room in Q is made by evicting its oldest; a demoted LIR too large for Q leaves.
///
/// libCacheSim's hit on an entry in Q only demotes LIRs before the entry is
/// placed in S, and a demotion can evict the entry itself from Q. It then stays
/// resident in S outside both shares until it is hit again (it becomes LIR) or
/// pruned (it leaves). This port keeps that, so its hits are libCacheSim's; such
/// entries count in `totalCost`, which can then exceed the limit by them (on the
/// exported datasets and a Zipf trace, by one entry at most: under 1% of the cache).
///
/// Sizes are measured in cost when there is a cost limit, else in entries; a
/// count limit beside a cost limit is kept by evicting Q's oldest (then demoting).
public struct LIRSPolicy: EvictionPolicy {
    public static let name = "LIRS"
    /// The share of the cache for resident HIR entries (libCacheSim's `hirs_ratio`).
    public static let hirShare = 0.01

    public let limits: CacheLimits
    private let measuresCost: Bool
    /// The cache's size in the measure (cost or entries), and each share of it.
    private let capacity: Int
    let hirLimit: Int
    let lirLimit: Int

    var nodes: [Node] = []
    var freeNodes: [Int32] = []
    @usableFromInline var nodeOfSlot: [Int32] = []
    /// Nodes in S whose entry is not resident (no slot), by key fingerprint.
    var remembered = FingerprintMap()
    var stack = NodeList()
    var queue = NodeList()
    var history = NodeList()
    /// Sizes of LIR entries and of Q's entries, in the measure.
    private(set) var lirSize = 0
    private(set) var hirSize = 0
    public private(set) var totalCost = 0
    public private(set) var count = 0
    /// Slots evicted by the current operation, reported when it ends.
    private var victims: [Slot] = []
    /// The node a hit is moving from Q to S: it stays resident while that happens.
    private var pinned: Int32 = -1
    /// A removed LIR entry leaves S to be pruned on the next access (pruning may evict).
    private var needsPrune = false

    public init(limits: CacheLimits) {
        self.limits = limits
        measuresCost = limits.costLimit != .max || limits.countLimit == .max
        capacity = measuresCost ? limits.costLimit : limits.countLimit
        hirLimit = max(1, Int(Self.hirShare * Double(capacity)))
        lirLimit = capacity - hirLimit
    }

    @inlinable public func contains(_ slot: Slot) -> Bool { Int(slot) < nodeOfSlot.count && nodeOfSlot[Int(slot)] >= 0 }
    /// A new key is looked for among S's non-resident entries. The miss then evicts Q's oldest,
    /// which S remembers by its fingerprint, and S, grown past its bound, drops its oldest
    /// non-resident entry, unlinking it from S and NH and forgetting its fingerprint: those
    /// neighbours and buckets start loading. Each of the two entries came with this hint a miss
    /// ago, as the one after it in its list now does.
    public mutating func prefetch(absent fingerprint: UInt64) {
        remembered.prefetch(fingerprint)
        if let oldest = queue.oldest {
            let node = nodes[Int(oldest)]
            prefetchNode(node.links.1.next)
            remembered.prefetch(node.fingerprint)
        }
        if let oldest = history.oldest {
            let node = nodes[Int(oldest)]
            prefetchNode(node.links.0.previous)
            prefetchNode(node.links.0.next)
            prefetchNode(node.links.2.next)
            remembered.prefetch(node.fingerprint)
        }
    }

    /// A hit reads the slot's node: it starts loading.
    public func prefetch(_ slot: Slot) {
        guard let node = node(ofSlot: slot) else { return }
        prefetchNode(node)
    }

    /// Once the node has arrived: a hit relinks it in S and in Q, writing its neighbours there.
    public mutating func prefetchNeighbours(_ slot: Slot) {
        guard let node = node(ofSlot: slot) else { return }
        let links = nodes[Int(node)].links
        prefetchNode(links.0.previous)
        prefetchNode(links.0.next)
        prefetchNode(links.1.previous)
        prefetchNode(links.1.next)
    }

    /// Starts loading `node`, a list's neighbour or `NodeList.none` for none.
    private func prefetchNode(_ node: Int32) {
        if node != NodeList.none { nodes.prefetchElement(Int(node)) }
    }

    private func node(ofSlot slot: Slot) -> Int32? { contains(slot) ? nodeOfSlot[Int(slot)] : nil }

    /// Whether the entry in `slot` has LIR status (for tests).
    func isLIR(_ slot: Slot) -> Bool { contains(slot) && nodes[Int(nodeOfSlot[Int(slot)])].isLIR }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        if needsPrune { prune() }
        let node = nodeOfSlot[Int(slot)]
        if nodes[Int(node)].inStack { moveToNewest(node, in: .stack) }
        if nodes[Int(node)].inQueue { moveToNewest(node, in: .queue) }
        if nodes[Int(node)].inStack {
            if nodes[Int(node)].isLIR {
                prune()
            } else if nodes[Int(node)].residentInStack {
                promoteToLIR(node)
            }
        } else {
            pushQueuedOntoStack(node)
        }
        limitStack()
        report(to: evict)
    }

    public mutating func insert(_ entry: NewEntry, evict: (Slot) -> Void) -> Bool {
        if needsPrune { prune() }
        var size = measuresCost ? entry.cost : 1
        let node: Int32
        if let known = remembered[entry.fingerprint].map(Int32.init) {
            // A key S remembers comes back as LIR, measured by the size S remembers (as libCacheSim).
            node = known
            if nodes[Int(node)].inHistory { unlink(node, from: .history) }
            moveToNewest(node, in: .stack)
            size = nodes[Int(node)].size
            while lirSize + size > lirLimit, let oldest = stack.oldest, oldest != node { demoteOldestLIR() }
            while lirSize + hirSize + size > capacity {
                let before = (lirSize, hirSize)
                while hirSize >= hirLimit, !queue.isEmpty { evictOldestHIR() }
                if stack.oldest != node { demoteOldestLIR() }
                if before == (lirSize, hirSize) { break }
            }
            nodes[Int(node)].isLIR = true
            nodes[Int(node)].residentInStack = true
            lirSize += size
            remembered[entry.fingerprint] = nil
        } else {
            guard size <= lirLimit, size <= hirLimit else {
                limitStack()
                report(to: evict)
                return false
            }
            if lirSize + size > lirLimit, hirSize + size > hirLimit {
                while hirSize + size > hirLimit, !queue.isEmpty { evictOldestHIR() }
            }
            node = makeNode(fingerprint: entry.fingerprint, size: size)
            append(node, to: .stack)
            nodes[Int(node)].residentInStack = true
            if lirSize + size <= lirLimit {
                nodes[Int(node)].isLIR = true
                lirSize += size
            } else {
                append(node, to: .queue)
                hirSize += size
            }
        }
        attach(entry, to: node)
        if measuresCost, limits.countLimit != .max {
            while count > limits.countLimit, evictOne() {}
        }
        limitStack()
        report(to: evict)
        return true
    }

    public mutating func remove(_ slot: Slot) {
        let node = nodeOfSlot[Int(slot)]
        if nodes[Int(node)].inStack {
            if nodes[Int(node)].isLIR {
                lirSize -= nodes[Int(node)].size
                needsPrune = true
            }
            leaveStack(node)
        }
        if nodes[Int(node)].inQueue {
            hirSize -= nodes[Int(node)].size
            unlink(node, from: .queue)
        }
        if nodes[Int(node)].inHistory { unlink(node, from: .history) }
        detach(node)
        release(node)
    }

    public mutating func evictNext() -> Slot? {
        if needsPrune { prune() }
        while victims.isEmpty, evictOne() {}
        guard !victims.isEmpty else { return nil }
        return victims.removeFirst()
    }

    public mutating func removeAll() {
        self = LIRSPolicy(limits: limits)
    }

    // MARK: - libCacheSim's steps

    /// A hit on a resident HIR entry in S: it leaves Q and becomes LIR.
    private mutating func promoteToLIR(_ node: Int32) {
        let size = nodes[Int(node)].size
        if nodes[Int(node)].inQueue {
            hirSize -= size
            unlink(node, from: .queue)
        }
        while lirSize + size > lirLimit, let oldest = stack.oldest, oldest != node { demoteOldestLIR() }
        nodes[Int(node)].isLIR = true
        lirSize += size
    }

    /// A hit on an entry only Q holds: LIRs are demoted as if it were to become
    /// LIR, then it goes to the top of S as a resident HIR entry.
    private mutating func pushQueuedOntoStack(_ node: Int32) {
        pinned = node
        while lirSize + nodes[Int(node)].size > lirLimit, !stack.isEmpty { demoteOldestLIR() }
        pinned = -1
        append(node, to: .stack)
        nodes[Int(node)].isLIR = false
        nodes[Int(node)].residentInStack = true
    }

    /// S's oldest entry leaves S; it stays resident in Q when it fits Q's share.
    private mutating func demoteOldestLIR() {
        guard let node = stack.oldest else { return }
        let size = nodes[Int(node)].size
        lirSize -= size
        leaveStack(node)
        if size <= hirLimit {
            while hirSize + size > hirLimit, !queue.isEmpty { evictOldestHIR() }
            if nodes[Int(node)].inQueue { moveToNewest(node, in: .queue) } else { append(node, to: .queue) }
            hirSize += size
        }
        settle(node)
        prune()
    }

    /// Q's oldest entry is evicted; S remembers it as non-resident.
    private mutating func evictOldestHIR() {
        guard let node = queue.oldest else { return }
        hirSize -= nodes[Int(node)].size
        unlink(node, from: .queue)
        if nodes[Int(node)].inStack {
            nodes[Int(node)].residentInStack = false
            if !nodes[Int(node)].inHistory { append(node, to: .history) }
        }
        settle(node)
    }

    /// HIR entries below S's oldest LIR entry leave S (the newest always stays).
    private mutating func prune() {
        needsPrune = false
        while let node = stack.oldest, node != stack.newest, !nodes[Int(node)].isLIR {
            if !nodes[Int(node)].residentInStack, nodes[Int(node)].inHistory { unlink(node, from: .history) }
            leaveStack(node)
            settle(node)
        }
    }

    /// S holds at most twice the cache: its oldest non-resident entries go first.
    private mutating func limitStack() {
        let bound = capacity.multipliedReportingOverflow(by: 2)
        guard !bound.overflow else { return }
        while stack.size > bound.partialValue, let node = history.oldest {
            unlink(node, from: .history)
            if nodes[Int(node)].inStack { leaveStack(node) }
            settle(node)
        }
    }

    /// One step of eviction for trims and the count limit: Q's oldest, else a
    /// demotion, else a resident HIR entry S alone holds. False when nothing is resident.
    private mutating func evictOne() -> Bool {
        if !queue.isEmpty {
            evictOldestHIR()
        } else if let oldest = stack.oldest, nodes[Int(oldest)].isLIR {
            demoteOldestLIR()
        } else if let node = oldestResidentInStack() {
            leaveStack(node)
            settle(node)
        } else {
            return false
        }
        return true
    }

    private func oldestResidentInStack() -> Int32? {
        var node = stack.oldest ?? NodeList.none
        while node != NodeList.none {
            if nodes[Int(node)].slot >= 0 { return node }
            node = link(node, .stack).next
        }
        return nil
    }

    // MARK: - Residency

    private mutating func leaveStack(_ node: Int32) {
        unlink(node, from: .stack)
        nodes[Int(node)].isLIR = false
        nodes[Int(node)].residentInStack = false
    }

    /// Reports a node that stopped being resident, and frees one nothing holds.
    private mutating func settle(_ node: Int32) {
        guard node != pinned else { return }
        let entry = nodes[Int(node)]
        let resident = entry.inQueue || (entry.inStack && entry.residentInStack)
        if !resident, entry.slot >= 0 {
            victims.append(entry.slot)
            detach(node)
            if entry.inStack { remembered[entry.fingerprint] = Int(node) }
        }
        if nodes[Int(node)].slot < 0, !entry.inStack {
            if remembered[entry.fingerprint] == Int(node) { remembered[entry.fingerprint] = nil }
            if !entry.inQueue, !entry.inHistory { release(node) }
        }
    }

    private mutating func attach(_ entry: NewEntry, to node: Int32) {
        let index = Int(entry.slot)
        if index >= nodeOfSlot.count {
            nodeOfSlot.append(contentsOf: repeatElement(-1, count: max(index + 1, nodeOfSlot.count * 2, 16) - nodeOfSlot.count))
        }
        nodeOfSlot[index] = node
        nodes[Int(node)].slot = entry.slot
        nodes[Int(node)].cost = entry.cost
        totalCost += entry.cost
        count += 1
    }

    private mutating func detach(_ node: Int32) {
        let slot = nodes[Int(node)].slot
        guard slot >= 0 else { return }
        nodeOfSlot[Int(slot)] = -1
        nodes[Int(node)].slot = -1
        totalCost -= nodes[Int(node)].cost
        count -= 1
    }

    private mutating func report(to evict: (Slot) -> Void) {
        for victim in victims { evict(victim) }
        victims.removeAll(keepingCapacity: true)
    }
}

extension LIRSPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<LIRSPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<LIRSPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
