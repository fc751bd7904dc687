import Foundation
import Testing
@testable import ImagePipeline
@testable import CacheSimulation
@_spi(Simulation) import CacheEngine

@Suite("Simulator and offline bounds")
struct SimulationTests {
    static let onlinePolicies = EvictionPolicyKind.allCases.filter { $0 != .nsCache }

    @Test("Belady is never beaten by an online policy at equal sizes", arguments: [1, 2, 3])
    func beladyOptimal(_ seed: Int) {
        let trace = SimulationTrace.zipf(objects: 2_000, alpha: 0.7, requests: 30_000, seed: UInt64(seed))
        for capacity in [20, 200] {
            let limits = unitLimits(capacity)
            let optimal = OfflineBounds.belady(trace, limits: limits)
            for kind in Self.onlinePolicies {
                let online = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: kind))
                #expect(optimal.hits >= online.hits, "\(kind) at \(capacity): \(online.hits) > \(optimal.hits)")
            }
        }
    }

    @Test("the space-time bound caps every policy on variable sizes, for objects and bytes")
    func spaceTimeBound() {
        var trace = SimulationTrace()
        var generator = SplitMix64(seed: 5)
        let sizes = (0..<1_500).map { _ in Int(1_000 + generator.next() % 60_000) }
        for object in 0..<1_500 { _ = trace.addKey(fingerprint: object.cacheFingerprint) }
        let popularity = ZipfDistribution(objects: 1_500, alpha: 0.9)
        for index in 0..<40_000 {
            let key = popularity.sample(&generator)
            trace.append(key: key, cost: sizes[Int(key)] * 4, size: sizes[Int(key)], time: UInt64(index))
        }
        let limits = CacheLimits(costLimit: 8_000_000)
        let bound = OfflineBounds.spaceTimeBound(trace, limits: limits)
        let belady = OfflineBounds.belady(trace, limits: limits)
        for result in Self.onlinePolicies.map({ CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: $0)) }) + [belady] {
            #expect(bound.objects.hits >= result.hits, "\(result.policy) hits")
            #expect(bound.bytes.byteHits >= result.byteHits, "\(result.policy) byte hits")
        }
        #expect(bound.objects.hitRatio < 1)
    }

    @Test("LRU on an independent Zipf trace matches Che's approximation within 0.002", arguments: [100, 1_000])
    func cheApproximation(_ capacity: Int) {
        let trace = SimulationTrace.zipf(objects: 10_000, alpha: 0.8, requests: 2_000_000, seed: 2024)
        let simulated = CacheSimulator.run(trace, SimulationConfiguration(limits: unitLimits(capacity), policy: .lru))
        let predicted = cheMissRatio(ZipfDistribution(objects: 10_000, alpha: 0.8).probabilities, capacity: capacity)
        #expect(abs(simulated.missRatio - predicted) < 0.002, "simulated \(simulated.missRatio), Che \(predicted)")
        #expect(abs(predicted - (capacity == 100 ? 0.843 : 0.563)) < 0.005)  // the figures the issue quotes
    }

    @Test("a count limit sizes every policy's queues as the same capacity in unit costs does", arguments: EvictionPolicyKind.allCases)
    func countLimitBindsLikeCost(_ kind: EvictionPolicyKind) {
        // A Zipf(0.8) get-or-set stream over 20k keys, room for 2k.
        let trace = SimulationTrace.zipf(objects: 20_000, alpha: 0.8, requests: 200_000, seed: 16)
        let byCost = CacheSimulator.run(trace, SimulationConfiguration(limits: unitLimits(2_000), policy: kind))
        let byCount = CacheSimulator.run(
            trace, SimulationConfiguration(limits: CacheLimits(costLimit: .max, countLimit: 2_000, maxEntryFraction: 1), policy: kind))
        let both = CacheSimulator.run(
            trace, SimulationConfiguration(limits: CacheLimits(costLimit: 2_000, countLimit: 2_000, maxEntryFraction: 1), policy: kind))
        // W-TinyLFU sizes its sketch as Caffeine does: for the count limit under one (`maximumSize`),
        // for the entries held once half full under a cost limit (`maximumWeight`): a hair apart.
        let tolerance = kind == .wTinyLFU ? 0.005 : 0
        #expect(abs(byCount.hitRatio - byCost.hitRatio) <= tolerance, "count \(byCount.hitRatio), cost \(byCost.hitRatio)")
        #expect(abs(both.hitRatio - byCost.hitRatio) <= tolerance, "both \(both.hitRatio), cost \(byCost.hitRatio)")
        if kind == .s3fifo(moveToMainThreshold: 1) || kind == .wTinyLFU {
            // Before: S3-FIFO fell below LRU under a count limit, and W-TinyLFU equalled it.
            let lru = CacheSimulator.run(trace, SimulationConfiguration(limits: unitLimits(2_000), policy: .lru))
            #expect(byCount.hitRatio > lru.hitRatio + 0.03, "\(kind) \(byCount.hitRatio) against LRU \(lru.hitRatio)")
        }
    }

    @Test("trimming to nothing and purging leave every policy empty", arguments: EvictionPolicyKind.allCases + [MRUTestPolicy.custom])
    func trimsEmptyEveryPolicy(_ kind: EvictionPolicyKind) {
        struct Fill: EvictionPolicyVisitor {
            func visit<Policy: EvictionPolicy>(_ policy: Policy) -> [Int] {
                var core = CacheCore(policy: policy)
                func fill() {
                    for slot in 0..<50 {
                        _ = core.insert(NewEntry(slot: Slot(slot), cost: slot % 3, fingerprint: (slot + 1).cacheFingerprint), now: 0) { _, _ in }
                    }
                }
                fill()
                let filled = core.count
                core.trim(toCost: 0) { _, _ in }
                let afterTrim = core.count
                fill()
                core.respond(to: .purgeAll, now: 0) { _, _ in }
                return [filled, afterTrim, core.count, core.totalCost]
            }
        }
        let counts = kind.withPolicy(limits: CacheLimits(costLimit: 1_000, countLimit: 100, maxEntryFraction: 1), Fill())
        #expect(counts[0] == 50)
        #expect(counts[1] == 0, "\(kind) kept \(counts[1]) entries after trimming to cost 0")
        #expect(counts[2] == 0 && counts[3] == 0, "\(kind) kept \(counts[2]) entries after a purge")
    }

    @Test(
        "the live MemoryCache makes the simulator's decisions, striped or not",
        arguments: EvictionPolicyKind.allCases + [MRUTestPolicy.custom], [CacheStripes.single, CacheStripes(4)])
    func liveMatchesSimulation(_ kind: EvictionPolicyKind, stripes: CacheStripes) {
        var generator = SplitMix64(seed: 77)
        var trace = SimulationTrace()
        var interner = KeyInterner()
        let popularity = ZipfDistribution(objects: 800, alpha: 0.9)
        var requests: [(key: String, cost: Int)] = []
        for index in 0..<20_000 {
            let object = popularity.sample(&generator)
            let key = "https://images.example/\(object).jpg"
            let cost = 1_000 + Int(object) % 7 * 900
            requests.append((key, cost))
            trace.append(key: interner.id(for: key, in: &trace), cost: cost, size: cost / 8, time: UInt64(index))
        }
        let limits = CacheLimits(costLimit: 400_000, maxEntryFraction: 0.1)
        let simulated = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: kind, stripes: stripes))

        let live = MemoryCache<String, Int>(.init(limits: limits, policy: kind, stripes: stripes))
        for request in requests where live.value(for: request.key) == nil {
            live.insert(request.cost, for: request.key, cost: request.cost, missCost: request.cost / 8)
        }
        #expect(live.statistics == simulated.statistics)
        #expect(Double(live.statistics.hits) == simulated.hits)
    }

    @Test("a disk tier behind memory: hand-worked trace")
    func diskTier() {
        // Memory holds 2 unit entries (LRU); disk holds 3 bytes and trims to 70% (2).
        var trace = SimulationTrace()
        for _ in 0..<4 { _ = trace.addKey(fingerprint: trace.keyCount.cacheFingerprint) }
        for (time, name) in ["A", "B", "C", "A", "D", "A", "B"].enumerated() {
            trace.append(key: letterSlot(name), cost: 1, size: 1, time: UInt64(time))
        }
        let result = CacheSimulator.run(trace, SimulationConfiguration(
            limits: unitLimits(2), policy: .lru, disk: .init(byteLimit: 3)))
        // A B C: origin. A: disk hit. D: origin, disk trims B and C. A: memory hit. B: origin again.
        #expect(result.hits == 1)
        #expect(result.diskHits == 1)
        #expect(result.originFetches == 5)
        #expect(result.diskEvictions == 2)
        #expect(result.bytesDownloaded == 5)
        #expect(result.combinedHitRatio == 2.0 / 7.0)
    }

    @Test("memory warnings in a trace apply the configured reaction")
    func pressureEvents() {
        var trace = SimulationTrace.zipf(objects: 50, alpha: 0.5, requests: 0, seed: 1)
        for round in 0..<3 {
            for key in 0..<50 { trace.append(key: Slot(key), cost: 1, size: 1, time: UInt64(round * 50 + key)) }
            if round == 1 { trace.appendMemoryWarning(.warning) }
        }
        let limits = unitLimits(100)
        let purge = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: .lru, pressure: .purgeAll))
        let ignore = CacheSimulator.run(
            trace, SimulationConfiguration(limits: limits, policy: .lru, pressure: .init(warning: .ignore, critical: .ignore)))
        #expect(ignore.hits == 100)  // rounds 2 and 3 hit everything
        #expect(purge.hits == 50)  // round 3 starts cold
        #expect(purge.statistics.trimmed == 50)
    }
}

/// Che's approximation of LRU's miss ratio under independent references:
/// solve Σ(1 − e^(−p·T)) = C for the characteristic time T, then
/// miss ratio = Σ p·e^(−p·T).
func cheMissRatio(_ probabilities: [Double], capacity: Int) -> Double {
    func occupancy(_ time: Double) -> Double { probabilities.reduce(0) { $0 + 1 - exp(-$1 * time) } }
    var low = 0.0, high = 1.0
    while occupancy(high) < Double(capacity) { high *= 2 }
    for _ in 0..<200 {
        let middle = (low + high) / 2
        if occupancy(middle) < Double(capacity) { low = middle } else { high = middle }
    }
    return probabilities.reduce(0) { $0 + $1 * exp(-$1 * low) }
}
