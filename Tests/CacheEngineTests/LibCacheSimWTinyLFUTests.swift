import Testing
@_spi(Simulation) @testable import CacheEngine

@Suite("W-TinyLFU as libCacheSim builds it")
struct LibCacheSimWTinyLFUTests {
    @Test("XXH64 of an 8-byte id matches the xxhash reference, with libCacheSim's two seeds")
    func xxHash() {
        // From Python's xxhash 3: xxh64_intdigest(id.to_bytes(8, "little"), seed).
        let expected: [(UInt64, UInt64, UInt64)] = [
            (0, 7_474_699_180_120_069_235, 14_025_973_215_857_892_985),
            (1, 512_166_280_014_807_191, 9_505_396_150_020_625_599),
            (12_345, 15_384_485_318_039_433_706, 1_699_571_549_110_531_349),
            (9_223_372_036_854_775_813, 15_191_613_896_012_185_522, 2_539_297_574_224_070_758),
        ]
        for (id, first, second) in expected {
            #expect(XXH64.hash(id, seed: 0x1234_5678) == first)
            #expect(XXH64.hash(id, seed: 0x1234_4321) == second)
        }
    }

    @Test("the counting Bloom filter is sized as libCacheSim's, counts, and halves on decay", arguments: [1_000, 1_000_000_000])
    func countingBloomFilter(entries: Int) {
        var filter = CountingBloomFilter(entries: entries)
        #expect(filter.hashes == 10)
        #expect(filter.counterCount == (entries == 1_000 ? 14_378 : Int(Int32.max)))  // ⌈14.3776 × entries⌉, at most 2³¹ − 1
        for _ in 0..<5 { filter.add(42) }
        filter.add(7)
        #expect(filter.estimate(42) == 5)
        #expect(filter.estimate(7) == 1)
        #expect(filter.estimate(99) == 0)
        filter.decay()
        #expect(filter.estimate(42) == 2)
        #expect(filter.estimate(7) == 0)
        filter.removeAll()
        #expect(filter.estimate(42) == 0)
    }

    /// The filter's positions take a multiplication for C's `%`: for divisors from 1 to 2³¹ − 1
    /// (the most counters it keeps), the filter sizes among them, and values at the ends of the
    /// 32-bit range and at random, the remainder is the division's.
    @Test("the counters' positions are C's 32-bit remainders, computed without a division")
    func remainderWithoutDivision() {
        var random = SplitMix64(seed: 17)
        let divisors = [1, 2, 3, 7, 10, 14_378, 1 << 20, 1_437_762, (1 << 31) - 1]
            + (0..<200).map { _ in Int(random.next() % UInt64(Int32.max)) + 1 }
        for divisor in divisors {
            let multiplier = CountingBloomFilter.remainderMultiplier(dividingBy: divisor)
            let values: [UInt32] = [0, 1, UInt32(min(divisor, Int(UInt32.max))) &- 1, UInt32(truncatingIfNeeded: divisor),
                                    UInt32.max, UInt32.max - 1] + (0..<500).map { _ in UInt32(truncatingIfNeeded: random.next()) }
            for value in values {
                let remainder = CountingBloomFilter.remainder(value, dividingBy: divisor, multiplier: multiplier)
                guard remainder == Int(value % UInt32(divisor)) else {
                    Issue.record("\(value) mod \(divisor): \(remainder), C gives \(value % UInt32(divisor))")
                    return
                }
            }
        }
    }

    /// Inserts slots with unit cost under a limit of `capacity` (cost 1 each, no count limit
    /// unless given), returning the policy and what each step evicted.
    private struct Driver {
        var policy: LibCacheSimWTinyLFUPolicy
        var evicted: [Slot] = []
        let cost: Int

        init(limits: CacheLimits, cost: Int = 1) {
            policy = LibCacheSimWTinyLFUPolicy(limits: limits)
            self.cost = cost
        }

        @discardableResult
        mutating func insert(_ slot: Slot) -> Bool {
            var victims: [Slot] = []
            let kept = policy.insert(NewEntry(slot: slot, cost: cost, fingerprint: UInt64(slot))) { victims.append($0) }
            evicted += victims
            return kept
        }

        mutating func hit(_ slot: Slot) {
            var victims: [Slot] = []
            policy.recordHit(slot) { victims.append($0) }
            evicted += victims
        }
    }

    @Test("new entries gather in the window until the cache is full; making room drains it into main, then duels")
    func windowDrainedFirst() {
        // 200 entries: window 2, main 198 (probation 39, protected 158).
        var driver = Driver(limits: CacheLimits(costLimit: 200, maxEntryFraction: 1))
        for slot in 0..<200 { driver.insert(Slot(slot)) }
        #expect(driver.evicted.isEmpty)
        #expect((0..<200).allSatisfy { driver.policy.segment(of: Slot($0)) == "window" })
        driver.insert(200)
        // 0–38 fill probation, 39–196 protected, 197 fits main only past probation's share;
        // 198 then duels probation's oldest (0: inserted and moved, estimate 2) with its 1, and leaves.
        #expect(driver.evicted == [198])
        #expect(driver.policy.segment(of: 0) == "probation")
        #expect(driver.policy.segment(of: 39) == "protected")
        #expect(driver.policy.segment(of: 197) == "probation")
        #expect(driver.policy.segment(of: 199) == "window")
        #expect(driver.policy.count == 200)
    }

    @Test("window hits are not counted; main hits are, even after the entry left; a hit in probation can evict")
    func hitsAndCounting() {
        var driver = Driver(limits: CacheLimits(costLimit: 200, maxEntryFraction: 1))
        for slot in 0...200 { driver.insert(Slot(slot)) }  // evicts 198; the window holds 199, 200
        for _ in 0..<5 { driver.hit(199) }  // in the window: reordered, not counted
        driver.insert(201)
        driver.insert(202)
        #expect(driver.evicted == [198, 200, 199])  // each lost its duel at estimate 1 against 0's 2
        // 0 goes to protected, which cools its oldest (39) into probation, which drops its oldest (1).
        driver.hit(0)
        #expect(driver.evicted == [198, 200, 199, 1])
        #expect(driver.policy.segment(of: 0) == "protected")
        #expect(driver.policy.segment(of: 39) == "probation")
        // Three main hits raise 2's estimate to 5; the filter keeps it after 2 leaves. Back in the
        // window at 6, behind 201 and 202 (which move into the room main now has), it wins its
        // duel against probation's oldest (3, estimate 2); 203 and 204 then lose theirs.
        for _ in 0..<3 { driver.hit(2) }
        driver.policy.remove(2)
        for slot in [2, 203, 204, 205, 206] as [Slot] { driver.insert(slot) }
        #expect(Array(driver.evicted.suffix(3)) == [3, 203, 204])
        #expect(driver.policy.segment(of: 2) == "probation")
        #expect(driver.policy.segment(of: 201) != "window" && driver.policy.segment(of: 202) != "window")
    }

    @Test("nothing is kept when the window's share is under one entry (under 100 entries), or an entry is larger than the window")
    func smallCachesKeepNothing() {
        var small = Driver(limits: CacheLimits(costLimit: 99, maxEntryFraction: 1))
        let smallKept = small.insert(0)
        #expect(!smallKept && small.policy.count == 0)
        var large = Driver(limits: CacheLimits(costLimit: 10_000, maxEntryFraction: 1), cost: 101)
        let largeKept = large.insert(0)
        #expect(!largeKept)
        var fits = Driver(limits: CacheLimits(costLimit: 10_000, maxEntryFraction: 1), cost: 100)
        let fitsKept = fits.insert(0)
        #expect(fitsKept)
    }

    @Test("the same decisions whichever limit binds: cost only, count only, or both")
    func limitsThatBind() {
        func run(_ limits: CacheLimits, cost: Int) -> ([Slot], [Slot]) {
            var driver = Driver(limits: limits, cost: cost)
            var generator = SplitMix64(seed: 3)
            for _ in 0..<5_000 {
                let slot = Slot(generator.next() % 600)
                if driver.policy.contains(slot) { driver.hit(slot) } else { driver.insert(slot) }
            }
            return (driver.evicted, (0..<600).map(Slot.init).filter(driver.policy.contains))
        }
        let byCost = run(CacheLimits(costLimit: 300, maxEntryFraction: 1), cost: 1)
        let byCount = run(CacheLimits(costLimit: .max, countLimit: 300, maxEntryFraction: 1), cost: 5_000)
        let byBoth = run(CacheLimits(costLimit: 30_000, countLimit: 300, maxEntryFraction: 1), cost: 10)
        #expect(byCost.0.count > 1_000)
        #expect(byCount == byCost)
        #expect(byBoth == byCost)
    }

    @Test("trimming to nothing and purging leave it empty")
    func trimsEmpty() {
        var core = CacheCore(policy: LibCacheSimWTinyLFUPolicy(limits: CacheLimits(costLimit: 300, maxEntryFraction: 1)))
        for slot in 0..<400 {
            _ = core.insert(NewEntry(slot: Slot(slot), cost: 1, fingerprint: UInt64(slot)), now: 0) { _, _ in }
        }
        #expect(core.count == 300)
        core.trim(toCost: 0) { _, _ in }
        #expect(core.count == 0 && core.totalCost == 0)
        for slot in 0..<50 { _ = core.insert(NewEntry(slot: Slot(slot), cost: 1, fingerprint: UInt64(slot)), now: 0) { _, _ in } }
        core.respond(to: .purgeAll, now: 0) { _, _ in }
        #expect(core.count == 0)
    }
}
