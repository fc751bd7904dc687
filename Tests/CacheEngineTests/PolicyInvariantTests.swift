import Foundation
import Testing
@_spi(Simulation) @testable import CacheEngine

@Suite("Policies under random operations")
struct PolicyInvariantTests {
    @Test("limits hold and counters add up after every operation", arguments: EvictionPolicyKind.allCases)
    func invariants(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 5_000, countLimit: 40, maxEntryFraction: 0.2)
        let failures = kind.withPolicy(limits: limits, RandomOperations(seed: 99, operations: 20_000, keys: 120, maxCost: 1_200))
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    // libCacheSim's W-TinyLFU keeps nothing under 100 entries (its window would be empty), and
    // LIRS nothing over 1% of the cache: limits of hundreds of small entries exercise them too.
    @Test("limits hold at hundreds of entries of small cost", arguments: EvictionPolicyKind.allCases)
    func invariantsLarge(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 600, countLimit: 250, maxEntryFraction: 1)
        let failures = kind.withPolicy(limits: limits, RandomOperations(seed: 7, operations: 4_000, keys: 400, maxCost: 4))
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test("the simulator's look-ahead hints (a slot, an absent key's fingerprint, a slot's neighbours) change no decision",
          arguments: EvictionPolicyKind.allCases)
    func hintsChangeNothing(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 2_000, countLimit: 60, maxEntryFraction: 0.2)
        let hinted = kind.withPolicy(limits: limits, Decisions(seed: 5, hinted: true))
        let plain = kind.withPolicy(limits: limits, Decisions(seed: 5, hinted: false))
        #expect(hinted.count == 20_000 && hinted == plain)
    }

    /// What the simulator loads ahead for an eviction is only useful if the policy evicts what
    /// it names: over random lookups and inserts, each insert that evicts starts with the slot
    /// named soonest, and one that evicts two follows with the next.
    @Test("the victims a policy names next are the ones it evicts, in order", arguments: EvictionPolicyKind.allCases)
    func upcomingVictimsAreEvicted(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 2_000, countLimit: 60, maxEntryFraction: 0.2)
        let named = kind.withPolicy(limits: limits, NamedVictims(seed: 9))
        let mismatches = named.mismatches.count  // a count, so a failure prints five, not thousands
        #expect(mismatches == 0, "\(named.mismatches.prefix(5))")
        // LRU and FIFO name their queue's oldest two, CLOCK and SIEVE the first two unmarked from
        // their hand; over 20,000 requests each evicts thousands.
        if [.lru, .fifo, .clock, .sieve].contains(kind) { #expect(named.checked > 1_000) }
    }
}

/// Inserts and lookups at random, comparing each evicting insert's victims with the slots the
/// policy named before it.
private struct NamedVictims: EvictionPolicyVisitor {
    let seed: UInt64

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> (checked: Int, mismatches: [String]) {
        var core = CacheCore(policy: policy)
        var generator = SplitMix64(seed: seed)
        var checked = 0, mismatches: [String] = []
        for step in 0..<20_000 {
            let slot = Slot(generator.next() % 200)
            let now = UInt64(step) * 1_000_000
            if core.lookup(slot, now: now, removed: { _, _ in }) { continue }
            let (soonest, next) = core.upcomingVictims()
            var evicted: [Slot] = []
            let entry = NewEntry(slot: slot, cost: Int(1 + generator.next() % 80), fingerprint: Int(slot).cacheFingerprint, missCost: 1)
            _ = core.insert(entry, now: now) { victim, _ in evicted.append(victim) }
            if soonest != -1, let first = evicted.first {
                checked += 1
                if first != soonest { mismatches.append("step \(step): evicted \(evicted), named \(soonest) first") }
            }
            if next != -1, evicted.count > 1, evicted[1] != next {
                mismatches.append("step \(step): evicted \(evicted), named \(next) second")
            }
        }
        return (checked, mismatches)
    }
}

/// The decisions of a run of lookups and inserts, with or without each request's hint first:
/// per request, whether it hit and the slots it evicted.
private struct Decisions: EvictionPolicyVisitor {
    let seed: UInt64
    let hinted: Bool

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> [[Slot]] {
        var core = CacheCore(policy: policy)
        var generator = SplitMix64(seed: seed)
        var decisions: [[Slot]] = []
        for step in 0..<20_000 {
            let slot = Slot(generator.next() % 200)
            let fingerprint = Int(slot).cacheFingerprint
            if hinted {
                if core.contains(slot) { core.prefetch(slot) } else { core.prefetch(absent: fingerprint) }
                // Asked of a slot whether or not it is resident, as the simulator asks.
                core.prefetchNeighbours(slot)
            }
            var outcome: [Slot] = []
            let now = UInt64(step) * 1_000_000
            if core.lookup(slot, now: now, removed: { victim, _ in outcome.append(victim) }) {
                outcome.append(-1)  // a hit
            } else {
                let entry = NewEntry(slot: slot, cost: Int(1 + generator.next() % 80), fingerprint: fingerprint, missCost: 1)
                _ = core.insert(entry, now: now) { victim, _ in outcome.append(victim) }
            }
            decisions.append(outcome)
        }
        return decisions
    }
}

/// Random inserts, lookups, removals, trims and pressure reactions on a
/// `CacheCore`, checking after each one that both limits hold, membership
/// matches a reference set, and every counter balances.
private struct RandomOperations: EvictionPolicyVisitor {
    let seed: UInt64
    let operations: Int
    let keys: UInt64
    let maxCost: UInt64

    func visit<Policy: EvictionPolicy>(_ policy: Policy) -> [String] {
        var core = CacheCore(policy: policy)
        var generator = SplitMix64(seed: seed)
        var resident = Set<Slot>()
        var costs = [Slot: Int]()
        var failures: [String] = []
        for step in 0..<operations {
            let slot = Slot(generator.next() % keys)
            let now = UInt64(step) * 1_000_000
            let onRemoved: (Slot, EvictionReason) -> Void = { victim, _ in
                if resident.remove(victim) == nil { failures.append("step \(step): removed \(victim), not resident") }
            }
            switch generator.next() % 20 {
            case 0:
                if resident.remove(slot) != nil { core.remove(slot) }
            case 1:
                core.trim(toCost: Int(generator.next() % UInt64(policy.limits.costLimit + 1)), removed: onRemoved)
            case 2:
                let reactions: [MemoryPressureReaction] = [.purgeAll, .trimToFraction(0.5), .trimIdle(seconds: 0.05)]
                core.respond(to: reactions[Int(generator.next() % 3)], now: now, removed: onRemoved)
            default:
                if core.lookup(slot, now: now, removed: onRemoved) { continue }
                let cost = costs[slot] ?? Int(1 + generator.next() % maxCost)  // some over the cap
                costs[slot] = cost
                let entry = NewEntry(slot: slot, cost: cost, fingerprint: Int(slot).cacheFingerprint, missCost: cost)
                if core.insert(entry, now: now, removed: onRemoved) { resident.insert(slot) }
            }
            let stats = core.statistics
            let expectedCount = stats.resident
            if core.totalCost > policy.limits.costLimit || core.count > policy.limits.countLimit {
                failures.append("step \(step): cost \(core.totalCost), count \(core.count) over the limits")
            }
            if core.count != resident.count || core.count != expectedCount {
                failures.append("step \(step): count \(core.count), reference \(resident.count), counters \(expectedCount)")
            }
            if core.totalCost != resident.reduce(0, { $0 + costs[$1]! }) {
                failures.append("step \(step): total cost \(core.totalCost) differs from the entries'")
            }
            if let stray = (0..<Int(keys)).map(Slot.init).first(where: { core.policy.contains($0) != resident.contains($0) }) {
                failures.append("step \(step): slot \(stray) membership differs")
            }
            if failures.count > 5 { break }
        }
        return failures
    }
}
