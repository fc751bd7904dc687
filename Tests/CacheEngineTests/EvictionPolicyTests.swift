import Testing
@_spi(Simulation) @testable import CacheEngine

@Suite("Eviction policies on hand-worked traces")
struct EvictionPolicyTests {
    @Test func lruEvictsLeastRecentlyUsed() {
        var cache = PolicyHarness(LRUPolicy(limits: unitLimits(3)))
        cache.insertAll("A", "B", "C")
        cache.hit("A")
        cache.insertAll("D", "E")
        #expect(cache.evicted == ["B", "C"])
        #expect(cache.residentNames == ["A", "D", "E"])
    }

    @Test func fifoIgnoresHits() {
        var cache = PolicyHarness(FIFOPolicy(limits: unitLimits(3)))
        cache.insertAll("A", "B", "C")
        cache.hit("A")
        cache.insertAll("D", "E")
        #expect(cache.evicted == ["A", "B"])
    }

    @Test("CLOCK gives referenced entries a second chance, then forgets the order")
    func clockSecondChance() {
        func run<Policy: EvictionPolicy>(_ policy: Policy) -> [String] {
            var cache = PolicyHarness(policy)
            cache.insertAll("A", "B", "C")
            cache.hit("B", "A")
            cache.insertAll("D", "E")
            return cache.evicted
        }
        let clock = run(CLOCKPolicy(limits: unitLimits(3)))
        let lru = run(LRUPolicy(limits: unitLimits(3)))
        // D: the hand clears A and B, evicts C. E: all bits clear, oldest is A.
        #expect(clock == ["C", "A"])
        #expect(lru == ["C", "B"])
    }

    @Test("SIEVE's hand keeps its place: a survivor it passed outlives a newer entry")
    func sieveHandMovement() {
        var cache = PolicyHarness(SIEVEPolicy(limits: unitLimits(3)))
        cache.insertAll("A", "B", "C")
        cache.hit("A")
        cache.insert("D")  // hand clears A, evicts B, rests on C
        #expect(cache.evicted == ["B"])
        #expect(cache.policy.hand == PolicyHarness<SIEVEPolicy>.slot("C"))
        cache.hit("C")
        cache.insert("E")  // hand clears C, evicts D (LRU would evict A)
        #expect(cache.evicted == ["B", "D"])
        #expect(cache.resident("A", "C", "E"))
        cache.insert("F")  // hand ran off the newest end: wraps to the oldest, A (unvisited)
        #expect(cache.evicted == ["B", "D", "A"])
    }

    // Twenty unit entries: S's share is 2, M's 18. While the cache fills, new
    // entries that find S full go to M; after the first eviction they go to S.
    @Test("S3-FIFO: one-hit wonders leave through the small queue; a ghost comes back into main")
    func s3fifoGhostReadmission() {
        typealias Harness = PolicyHarness<S3FIFOPolicy>
        var cache = Harness(S3FIFOPolicy(limits: unitLimits(20), moveToMainThreshold: 1))
        for letter in "ABCDEFGHIJKLMNOPQRST" { cache.insert(String(letter)) }
        #expect(!cache.policy.isInMain(Harness.slot("B")) && cache.policy.isInMain(Harness.slot("C")))
        cache.hit("B")
        cache.insert("U")  // full: S's oldest, A (never hit), leaves and becomes a ghost; U enters S
        #expect(cache.evicted == ["A"])
        #expect(cache.policy.isGhost(0))  // A is slot 0; the harness fingerprints slot × a constant
        #expect(!cache.policy.isInMain(Harness.slot("U")))
        cache.insert("V")  // B was hit: promoted to M; S goes on to U, which leaves
        #expect(cache.evicted == ["A", "U"])
        #expect(cache.policy.isInMain(Harness.slot("B")))
        cache.insert("A")  // a ghost: straight into M, which is over its share: its oldest, C, leaves
        #expect(cache.evicted == ["A", "U", "C"])
        #expect(cache.policy.isInMain(Harness.slot("A")))
        #expect(!cache.policy.isGhost(0))
    }

    @Test("S3-FIFO's move-to-main threshold 2 needs two hits")
    func s3fifoThresholdTwo() {
        var cache = PolicyHarness(S3FIFOPolicy(limits: unitLimits(20), moveToMainThreshold: 2))
        for letter in "ABCDEFGHIJKLMNOPQRST" { cache.insert(String(letter)) }
        cache.hit("A")
        cache.hit("B", "B")
        cache.insertAll("U", "V")
        #expect(cache.evicted == ["A", "U"])  // A had one hit: not enough; B's two move it to M
        #expect(cache.policy.isInMain(PolicyHarness<S3FIFOPolicy>.slot("B")))
    }

    @Test("S3-FIFO keeps nothing that costs the small queue's whole share, as libCacheSim")
    func s3fifoLargeEntry() {
        var cache = PolicyHarness(S3FIFOPolicy(limits: CacheLimits(costLimit: 100, maxEntryFraction: 0.5)))
        let tooLarge = cache.insert("A", cost: 10), fitting = cache.insert("B", cost: 9)
        #expect(!tooLarge && fitting)
        #expect(!cache.policy.contains(PolicyHarness<S3FIFOPolicy>.slot("A")))
        #expect(!cache.policy.isInMain(PolicyHarness<S3FIFOPolicy>.slot("B")))
    }

    @Test("ARC: a hit moves an entry to T2; a key back from B1 grows T1's target and enters T2")
    func arcAdaptation() {
        typealias Harness = PolicyHarness<ARCPolicy>
        var cache = Harness(ARCPolicy(limits: unitLimits(4)))
        cache.insertAll("A", "B", "C", "D")
        cache.hit("A", "B")
        #expect(cache.policy.isFrequent(Harness.slot("A")) && !cache.policy.isFrequent(Harness.slot("C")))
        cache.insert("E")  // T1 (C, D) is over the target 0: its oldest, C, leaves into B1
        #expect(cache.evicted == ["C"])
        cache.insert("C")  // found in B1: the target grows by max(|B2| / |B1|, 1) = 1; T1 (D, E) is still over it
        #expect(cache.evicted == ["C", "D"])
        #expect(cache.policy.target == 1)
        #expect(cache.policy.isFrequent(Harness.slot("C")))
        #expect(cache.residentNames == ["A", "B", "C", "E"])
    }

    @Test("2Q: hits in A1in change nothing; a key back from A1out enters Am, the LRU")
    func twoQPromotion() {
        typealias Harness = PolicyHarness<TwoQPolicy>
        var cache = Harness(TwoQPolicy(limits: unitLimits(8)))  // A1in 2, Am 6, A1out remembers 4
        cache.insertAll("A", "B", "C", "D", "E", "F", "G", "H")
        cache.hit("A", "A", "A")  // a burst in A1in: still the oldest there
        cache.insert("I")
        #expect(cache.evicted == ["A"])
        cache.insert("A")  // remembered in A1out: into Am, while A1in gives up B
        #expect(cache.evicted == ["A", "B"])
        #expect(cache.policy.isInMain(Harness.slot("A")) && !cache.policy.isInMain(Harness.slot("I")))
        cache.insertAll("J", "K", "L", "M", "N", "O")  // A1in's oldest leave first; A, in Am, stays
        #expect(cache.resident("A"))
        #expect(cache.evicted == ["A", "B", "C", "D", "E", "F", "G", "H"])
    }

    @Test("LIRS: new keys are LIR while the LIR share has room, then HIR; a key S remembers returns as LIR")
    func lirsStatuses() {
        typealias Harness = PolicyHarness<LIRSPolicy>
        var cache = Harness(LIRSPolicy(limits: unitLimits(4)))  // LIR share 3, HIR share (Q) 1
        cache.insertAll("A", "B", "C", "D")
        #expect(cache.policy.isLIR(Harness.slot("C")) && !cache.policy.isLIR(Harness.slot("D")))
        cache.insert("E")  // Q is full: its oldest, D, leaves; S remembers it
        #expect(cache.evicted == ["D"])
        cache.insert("D")  // remembered: LIR; S's oldest LIR, A, is demoted into Q, evicting E
        #expect(cache.evicted == ["D", "E"])
        #expect(cache.policy.isLIR(Harness.slot("D")) && !cache.policy.isLIR(Harness.slot("A")))
        #expect(cache.residentNames == ["A", "B", "C", "D"])
    }

    @Test("LIRS: a hit on an entry only Q holds keeps it resident in S, as libCacheSim does, until a hit makes it LIR")
    func lirsQueueHit() {
        typealias Harness = PolicyHarness<LIRSPolicy>
        var cache = Harness(LIRSPolicy(limits: unitLimits(4)))
        cache.insertAll("A", "B", "C", "D", "E", "D")  // as above: A in Q only, B, C and D LIR
        cache.hit("A")  // B is demoted into Q, which pushes A out of Q; A stays resident in S, outside both shares
        #expect(cache.evicted == ["D", "E"])
        #expect(cache.residentNames == ["A", "B", "C", "D"] && !cache.policy.isLIR(Harness.slot("A")))
        cache.hit("A")  // now LIR, within the LIR share again
        #expect(cache.policy.isLIR(Harness.slot("A")))
        #expect(cache.policy.lirSize <= cache.policy.lirLimit && cache.policy.hirSize <= cache.policy.hirLimit)
    }

    @Test("LIRS keeps its LIR set through a scan of one-time keys, where LRU keeps none of it")
    func lirsScanResistance() {
        var lirs = PolicyHarness(LIRSPolicy(limits: unitLimits(4)))
        var lru = PolicyHarness(LRUPolicy(limits: unitLimits(4)))
        lirs.insertAll("A", "B", "C")
        lru.insertAll("A", "B", "C")
        lirs.hit("A", "B", "C")
        lru.hit("A", "B", "C")
        for scanned in "EFGHIJKLMNOPQRSTUVWXYZ" {
            lirs.insert(String(scanned))
            lru.insert(String(scanned))
        }
        #expect(lirs.resident("A", "B", "C"))
        #expect(!lru.resident("A") && !lru.resident("B") && !lru.resident("C"))
    }

    @Test("LIRS refuses a new entry larger than its HIR share, as libCacheSim does")
    func lirsLargeEntry() {
        var cache = PolicyHarness(LIRSPolicy(limits: CacheLimits(costLimit: 1_000, maxEntryFraction: 1)))  // Q: 10
        let tooLarge = cache.insert("A", cost: 11), fitting = cache.insert("B", cost: 10)
        #expect(!tooLarge && fitting)
        #expect(cache.policy.totalCost == 10)
    }

    @Test("LIRS sizes its shares by entries under a count limit, and keeps a count limit beside a cost limit")
    func lirsLimits() {
        var byCount = PolicyHarness(LIRSPolicy(limits: CacheLimits(costLimit: .max, countLimit: 4)))
        for (index, name) in ["A", "B", "C", "D", "E"].enumerated() { byCount.insert(name, cost: 1_000 * (index + 1)) }
        #expect(byCount.evicted == ["D"] && byCount.policy.count == 4)
        var both = PolicyHarness(LIRSPolicy(limits: CacheLimits(costLimit: 10_000, countLimit: 3, maxEntryFraction: 1)))
        for name in ["A", "B", "C", "D", "E"] { both.insert(name, cost: 10) }
        #expect(both.policy.count == 3 && both.evicted.count == 2)
    }

    @Test("W-TinyLFU keeps a frequently used working set through a one-time scan, once it has counted it")
    func tinyLFUScanResistance() {
        /// How many of `hot` keys, each used 20 times, a 100-entry cache keeps through a scan of 2,000 others.
        func kept(hot: Int) -> (tiny: Int, lru: Int) {
            var tiny = WTinyLFUPolicy(limits: unitLimits(100))
            var lru = LRUPolicy(limits: unitLimits(100))
            func access(_ slot: Slot) {
                let entry = NewEntry(slot: slot, cost: 1, fingerprint: Int(slot).cacheFingerprint)
                if tiny.contains(slot) { tiny.recordHit(slot) { _ in } } else { _ = tiny.insert(entry) { _ in } }
                if lru.contains(slot) { lru.recordHit(slot) { _ in } } else { _ = lru.insert(entry) { _ in } }
            }
            for _ in 0..<20 { for key in 0..<hot { access(Slot(key)) } }
            for cold in 1000..<3000 { access(Slot(cold)) }
            return ((0..<hot).filter { tiny.contains(Slot($0)) }.count, (0..<hot).filter { lru.contains(Slot($0)) }.count)
        }
        let counted = kept(hot: 60)
        #expect(counted.tiny >= 58)
        #expect(counted.lru == 0)
        // A hot set that never fills half the cache was never counted (Caffeine 2.6 records no
        // read until then): the scan's newcomers, counted once, win every duel. Caffeine keeps
        // 59 of 60 and 0 of 50 here.
        #expect(kept(hot: 50).tiny == 0)
    }

    @Test("W-TinyLFU sizes its window and protected segment as Caffeine does: 2 and 128 of 163 entries")
    func tinyLFUShares() {
        var cache = PolicyHarness(WTinyLFUPolicy(limits: CacheLimits(costLimit: .max, countLimit: 163)))
        for slot in 0..<163 { cache.insert(letterName(Slot(slot))) }
        #expect(cache.evicted.isEmpty && cache.policy.count == 163)
        // All but the newest two have left the window for probation; a hit on each promotes it,
        // and once protected holds 128 its oldest go back to probation's newest end.
        for slot in 0..<161 { cache.hit(letterName(Slot(slot))) }
        var order: [Slot] = []
        while let next = cache.policy.evictNext() { order.append(next) }
        // Trims take probation (the 33 demoted), then protected (128), then the window (2).
        #expect(order == Array(0..<33) + Array(33..<161) + [161, 162])
    }

    @Test("W-TinyLFU records no hit until it is first half full, as Caffeine skips its read buffer until then")
    func tinyLFUIgnoresEarlyHits() {
        func evictedAfterEarlyHit(_ hitsA: Bool) -> [String] {
            var cache = PolicyHarness(WTinyLFUPolicy(limits: CacheLimits(costLimit: .max, countLimit: 10)))
            cache.insertAll("A", "B")
            if hitsA { cache.hit("A") }  // 2 of 10: before the sketch is sized
            cache.insertAll("C", "D", "E", "F", "G", "H", "I", "J", "K")
            return cache.evicted
        }
        // Unrecorded, the hit leaves A in probation, oldest, with no count: A duels K and loses,
        // as with no hit at all. Recorded, it would have moved A to protected and B would go.
        #expect(evictedAfterEarlyHit(true) == ["A"])
        #expect(evictedAfterEarlyHit(false) == ["A"])
    }

    @Test("GDSF evicts the lowest frequency × miss cost / cost and raises its clock")
    func gdsfPriorities() {
        var cache = PolicyHarness(GDSFPolicy(limits: CacheLimits(costLimit: 10, maxEntryFraction: 1)))
        cache.insert("A", cost: 5, missCost: 5)  // priority 1
        cache.insert("B", cost: 1, missCost: 5)  // priority 5
        cache.insert("C", cost: 4, missCost: 4)  // priority 1, newer than A
        cache.insert("D", cost: 1, missCost: 1)  // needs 1: A and C tie, A is older
        #expect(cache.evicted == ["A"])
        #expect(cache.policy.clock == 1)
        cache.hit("C")  // priority 1 + 2 × 4 / 4 = 3; D has 1 + 1 = 2
        cache.insert("E", cost: 5, missCost: 5)
        #expect(cache.evicted == ["A", "D"])
        #expect(cache.policy.clock == 2)
    }

    @Test("GDSF(1) ignores what a miss would download: the largest, least used entry goes first")
    func gdsfUniformMissCost() {
        func run(_ missCost: GDSFPolicy.MissCost) -> [String] {
            var cache = PolicyHarness(GDSFPolicy(limits: CacheLimits(costLimit: 10, maxEntryFraction: 1), missCost: missCost))
            cache.insert("A", cost: 5, missCost: 50)  // slow to download again
            cache.insert("B", cost: 2, missCost: 2)
            cache.insert("C", cost: 3, missCost: 3)
            cache.insert("D", cost: 2, missCost: 2)
            return cache.evicted
        }
        #expect(run(.download) == ["B"])  // A: 10, B and C: 1; B is older
        #expect(run(.uniform) == ["A"])  // A: 10⁶/5, the lowest
        #expect(EvictionPolicyKind(name: "gdsf-1") == .gdsf(missCost: .uniform))
    }

    @Test("GDSF(1) inserts before it evicts, as libCacheSim: a newcomer that is lowest leaves at once, at the clock it found")
    func gdsfUniformInsertsFirst() {
        var cache = PolicyHarness(GDSFPolicy(limits: CacheLimits(costLimit: 10, maxEntryFraction: 1), missCost: .uniform))
        cache.insert("A", cost: 2)  // 10⁶/2
        cache.insert("B", cost: 2)
        cache.insert("C", cost: 6)  // 10⁶/6
        let kept = cache.insert("D", cost: 8)  // 10⁶/8, lower than everything resident: it leaves, they stay
        #expect(!kept && cache.evicted == ["D"] && cache.resident("A", "B", "C"))
        #expect(cache.policy.clock == 1e6 / 8)
        cache.insert("E", cost: 4)  // clock + 10⁶/4 enters first; C (10⁶/6) is now the lowest and leaves
        #expect(cache.evicted == ["D", "C"] && cache.resident("A", "B", "E"))
    }

    @Test("NSCache on Linux evicts the cheapest entry first, even the one just added")
    func nsCacheCheapestFirst() {
        var cache = PolicyHarness(NSCachePolicy(limits: CacheLimits(costLimit: 10, maxEntryFraction: 1)))
        cache.insert("A", cost: 5)
        cache.insert("B", cost: 2)
        cache.insert("C", cost: 3)
        cache.hit("A", "B", "C")
        let admitted = cache.insert("D", cost: 1)
        #expect(!admitted)  // the newest and cheapest: its own victim
        #expect(cache.evicted == ["D"])
        cache.insert("E", cost: 4)
        #expect(cache.evicted == ["D", "B", "C"])  // reads did not protect B or C
        #expect(cache.residentNames == ["A", "E"])
        #expect(cache.policy.totalCost == 9)
    }

    @Test("NSCache evicts the newest among equal costs (the apps inserted cost 0)")
    func nsCacheEqualCosts() {
        var cache = PolicyHarness(NSCachePolicy(limits: CacheLimits(costLimit: .max, countLimit: 3)))
        cache.insertAll("A", "B", "C")
        cache.insert("D")
        #expect(cache.evicted == ["D"])
        let next = cache.policy.evictNext()
        #expect(next == PolicyHarness<NSCachePolicy>.slot("C"))
    }

    @Test("every policy refuses nothing itself but respects both limits", arguments: EvictionPolicyKind.allCases)
    func countLimit(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 1000, countLimit: 5, maxEntryFraction: 1)
        let counts = kind.withPolicy(limits: limits, FillVisitor())
        #expect(counts.maxCount <= 5)
        #expect(counts.maxCost <= 1000)
    }

    @Test("every policy keeps costs up to the largest entry cost exactly; a cache refuses a larger one",
          arguments: EvictionPolicyKind.allCases)
    func largestEntryCost(_ kind: EvictionPolicyKind) {
        let largest = CacheLimits.largestEntryCost
        let limits = CacheLimits(costLimit: .max, countLimit: 100, maxEntryFraction: 1)
        #expect(limits.maxEntryCost == largest)
        // Costs whose low 32 bits are all set, and one past: a carry between the halves shows.
        let costs = [largest, 1 << 32 - 1, 1 << 32, 5 << 40 | 0xFFFF_FFFF]
        #expect(kind.withPolicy(limits: limits, TotalCostVisitor(costs: costs)) == costs.map { $0 })

        var core = CacheCore(policy: LRUPolicy(limits: limits))
        #expect(!core.insert(NewEntry(slot: 0, cost: largest + 1, fingerprint: 1), now: 0) { _, _ in })
        #expect(core.insert(NewEntry(slot: 1, cost: largest, fingerprint: 2), now: 0) { _, _ in })
        #expect(core.totalCost == largest && core.statistics.rejections == 1)
        // What the 48 bits buy: a list policy's record of a slot in 16 bytes.
        #expect(MemoryLayout<SlotTable.Entry>.stride == 16)
    }
}

/// Inserts each cost in a slot of its own, in a policy with room for them all, and reports the
/// policy's total cost after each and what removing the entry gives back.
private struct TotalCostVisitor: EvictionPolicyVisitor {
    let costs: [Int]

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> [Int] {
        var policy = policy
        return costs.enumerated().map { index, cost in
            let slot = Slot(index)
            _ = policy.insert(NewEntry(slot: slot, cost: cost, fingerprint: UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15)) { _ in }
            let before = policy.totalCost
            guard policy.contains(slot) else { return -1 }
            policy.remove(slot)
            return before - policy.totalCost
        }
    }
}

/// Inserts 50 entries of cost 30 and reports the largest count and cost seen.
private struct FillVisitor: EvictionPolicyVisitor {
    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> (maxCount: Int, maxCost: Int) {
        var policy = policy
        var maxCount = 0, maxCost = 0
        for slot in 0..<50 {
            _ = policy.insert(NewEntry(slot: Slot(slot), cost: 30, fingerprint: slot.cacheFingerprint)) { _ in }
            maxCount = max(maxCount, policy.count)
            maxCost = max(maxCost, policy.totalCost)
        }
        return (maxCount, maxCost)
    }
}

@Suite("The live cache's policy boxes")
struct PolicyCoreBoxTests {
    /// A built-in policy in the generic box still works, only slower (its calls look up
    /// layouts at run time): every kind must find its own box.
    @Test("every built-in policy has a box of its own", arguments: EvictionPolicyKind.allCases)
    func ownBox(_ kind: EvictionPolicyKind) {
        let box = kind.withPolicy(limits: CacheLimits(costLimit: 1_000), MakeCacheCoreBox(timeToLive: nil))
        #expect(!String(describing: type(of: box)).hasPrefix("CacheCoreBox<"), "\(type(of: box))")
        #expect(box.limits == CacheLimits(costLimit: 1_000))
    }
}

@Suite("Policy names")
struct PolicyNameTests {
    @Test("every built-in kind has one name, read back to the same kind")
    func namesRoundTrip() {
        let names = EvictionPolicyKind.allCases.map(\.description)
        #expect(Set(names).count == names.count, "\(names)")
        for kind in EvictionPolicyKind.allCases { #expect(EvictionPolicyKind(name: kind.description) == kind) }
        #expect(EvictionPolicyKind(name: "S3FIFO-1") == .s3fifo(moveToMainThreshold: 1))
        #expect(EvictionPolicyKind.s3fifo(moveToMainThreshold: 3).description == "s3fifo-3")
        #expect(EvictionPolicyKind(name: "mru") == nil)
    }
}
