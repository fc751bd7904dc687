import Foundation
import Synchronization
import Testing
@testable import CacheEngine

/// Hits taken without the lock: logged by the reading thread, applied by the next writer.
@Suite("MemoryCache: hits without the lock")
struct LockFreeHitTests {
    @Test("a hit read without the lock counts before the next eviction")
    func loggedHitBeforeEviction() {
        let cache = MemoryCache<String, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 3, maxEntryFraction: 1), lockFreeHits: true))
        #expect(cache.hitsCanWait)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.insert(index, for: key, cost: 1) }
        #expect(cache.value(for: "a") == 0)
        // The hit is in this thread's log, not yet in the policy.
        let thread = ThreadIndex.current()
        #expect(thread >= 0)
        #expect(cache.stripes.log(stripe: 0, thread: thread).waiting == 1)
        cache.insert(3, for: "d", cost: 1)
        #expect(cache.stripes.log(stripe: 0, thread: thread).waiting == 0)
        #expect(cache.value(for: "b") == nil, "b was least recently used once a's hit was applied")
        #expect(cache.value(for: "a") == 0)
        #expect(cache.statistics.hits == 2)
    }

    /// Every policy, one thread: a cache whose hits go through the log answers each request
    /// exactly as one that takes the lock for every lookup (the path that was always exact:
    /// `whileLocked` forces it), and counts the same, through trims and expiry; so does the
    /// form without lock-free hits (`lockFreeHits` off).
    @Test("one thread: the same answers and counts as with the lock for every hit, and as the locked form", arguments: EvictionPolicyKind.allCases)
    func sameAsLocked(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 4_000, countLimit: 60, maxEntryFraction: 0.2)
        let logged = MemoryCache<Int, Int>(.init(limits: limits, policy: kind, lockFreeHits: true))
        let locked = MemoryCache<Int, Int>(.init(limits: limits, policy: kind, lockFreeHits: true))
        let lockedForm = MemoryCache<Int, Int>(.init(limits: limits, policy: kind, lockFreeHits: false))
        #expect(!lockedForm.hitsCanWait)
        var generator = SplitMix64(seed: 7)
        // Skewed towards small keys, so some stay and some come and go.
        let keys = (0..<30_000).map { _ in
            let uniform = Double(generator.next() >> 11) / Double(1 << 53)
            return Int(uniform * uniform * 400)
        }
        for (step, key) in keys.enumerated() {
            let cost = 10 + key % 150
            let found = logged.value(for: key)
            #expect(found == locked.value(for: key) { _ in }, "request \(step), key \(key), \(kind)")
            #expect(found == lockedForm.value(for: key), "request \(step), key \(key), \(kind), locked form")
            if found == nil {
                let stored = logged.insert(key, for: key, cost: cost)
                #expect(stored == locked.insert(key, for: key, cost: cost) && stored == lockedForm.insert(key, for: key, cost: cost))
            }
            if step % 5_000 == 4_999 {
                for cache in [logged, locked, lockedForm] { cache.trim(toFraction: 0.5) }
            }
            if step % 7_001 == 7_000 {
                for cache in [logged, locked, lockedForm] { cache.remove(key) }
            }
        }
        #expect(logged.statistics == locked.statistics && logged.statistics == lockedForm.statistics)
        #expect(logged.count == locked.count && logged.totalCost == locked.totalCost)
        #expect(lockedForm.count == locked.count && lockedForm.totalCost == locked.totalCost)
    }

    /// Readers beside writers that remove, replace, trim, purge and let entries expire: what
    /// a reader reads must stay whole until it is done (run under `scripts/sanitizers thread`,
    /// where ThreadSanitizer checks it), and every request is counted once.
    @Test("readers beside writers that remove, replace, trim and expire: counted once, limits held",
          arguments: [EvictionPolicyKind.lru, .clock, .sieve, .wTinyLFU, .arc, .lirs])
    func readersBesideWriters(_ kind: EvictionPolicyKind) async {
        // The locked form (`lockFreeHits` off) beside them: its writers free what leaves at once.
        for (timeToLive, lockFreeHits) in [(nil, true), (Duration.milliseconds(2), true), (Duration.milliseconds(2), false)] {
            let cache = MemoryCache<String, [Int]>(
                .init(limits: CacheLimits(costLimit: 50_000, countLimit: 300), policy: kind, timeToLive: timeToLive, lockFreeHits: lockFreeHits))
            let lookups = await withTaskGroup(of: Int.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var generator = SplitMix64(seed: UInt64(worker))
                        var lookups = 0
                        for step in 0..<10_000 {
                            let key = "k\(generator.next() % 1_000)"
                            switch generator.next() % 10 {
                            case 0: cache.insert([step], for: key, cost: 10 + step % 200)
                            case 1: _ = cache.remove(key)
                            case 2, 3, 4:
                                let value = cache.value(for: key) { ([step], 50) }
                                #expect(value.count == 1)
                                lookups += 1
                            default:
                                if let value = cache.value(for: key) { #expect(value.count == 1) }
                                lookups += 1
                            }
                            if step % 2_500 == 2_499 { cache.respond(to: worker % 2 == 0 ? .trimToFraction(0.3) : .purgeAll) }
                        }
                        return lookups
                    }
                }
                return await group.reduce(0, +)
            }
            let statistics = cache.statistics
            #expect(statistics.lookups == lookups, "\(kind), time to live \(String(describing: timeToLive)), lock-free hits \(lockFreeHits)")
            #expect(statistics.resident == cache.count && cache.count <= 300 && cache.totalCost <= 50_000)
        }
    }

    @Test("LIRS and libCacheSim's W-TinyLFU, whose hits may evict, take the lock for every hit; so does LRU unless told")
    func policiesThatCannotWait() {
        for kind in [EvictionPolicyKind.lirs, .wTinyLFULibCacheSim] {
            let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 10), policy: kind))
            #expect(!cache.hitsCanWait, "\(kind)")
        }
        for kind in [EvictionPolicyKind.lru, .fifo, .clock, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU, .arc, .twoQ, .gdsf(missCost: .download), .nsCache] {
            let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 10), policy: kind, lockFreeHits: true))
            #expect(cache.hitsCanWait, "\(kind)")
            // Unless told, every policy but LRU reads its hits lock-free; LRU takes the lock, its faster form on one thread.
            let byDefault = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 10), policy: kind))
            #expect(byDefault.hitsCanWait == (kind != .lru), "\(kind)")
        }
    }

    @Test("a thread that exits gives its number back")
    func numbersComeBack() {
        // Three times as many threads as numbers, one after another: without numbers given
        // back, the later ones would find none. Another test may hold every number for a
        // while, so a thread refused one is followed by a new thread a little later.
        for round in 0..<3 * ThreadIndex.capacity {
            var number = -1
            for attempt in 0..<200 where number < 0 {
                if attempt > 0 { usleep(10_000) }
                let asked = DispatchSemaphore(value: 0)
                let found = Mutex(-1)
                Thread {
                    let first = ThreadIndex.current()
                    found.withLock { $0 = first == ThreadIndex.current() ? first : -2 }
                    asked.signal()
                }.start()
                asked.wait()
                number = found.withLock { $0 }
                #expect(number != -2, "a thread's number changed between two asks")
            }
            #expect(number >= 0 && number < ThreadIndex.capacity, "thread \(round) got no number")
        }
    }

    @Test("threads beyond the records take the lock and lose nothing", arguments: [EvictionPolicyKind.lru, .clock])
    func moreThreadsThanRecords(_ kind: EvictionPolicyKind) {
        let threads = ThreadIndex.capacity + 8
        let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 200, maxEntryFraction: 1), policy: kind, lockFreeHits: true))
        let started = Atomic<Int>(0)
        let numbers = Mutex<[Int]>([])
        let done = DispatchGroup()
        for worker in 0..<threads {
            done.enter()
            Thread {
                let number = ThreadIndex.current()
                #expect(number == ThreadIndex.current())
                numbers.withLock { $0.append(number) }
                // Every thread alive at once, so the numbers run out.
                started.add(1, ordering: .relaxed)
                while started.load(ordering: .relaxed) < threads { sched_yield() }
                var generator = SplitMix64(seed: UInt64(worker))
                for _ in 0..<5_000 {
                    let key = Int(generator.next() % 400)
                    _ = cache.value(for: key) { (key, 1) }
                }
                done.leave()
            }.start()
        }
        done.wait()
        // Live threads hold different numbers, and past the records' count there are none
        // (other tests' threads may hold some too).
        let held = numbers.withLock { $0 }.filter { $0 >= 0 }
        #expect(Set(held).count == held.count && held.allSatisfy { $0 < ThreadIndex.capacity })
        #expect(threads - held.count >= 8)
        let statistics = cache.statistics
        #expect(statistics.lookups == threads * 5_000)
        #expect(statistics.insertions == statistics.misses)
        #expect(statistics.resident == cache.count && cache.count <= 200)
    }
}

extension HitLog {
    /// Hits logged and not applied yet.
    var waiting: Int { end.pointee.load(ordering: .relaxed) - start.pointee.load(ordering: .relaxed) }
}

/// Counts its members alive.
final class Census: Sendable {
    private let count = Atomic<Int>(0)
    var alive: Int { count.load(ordering: .relaxed) }

    final class Member: Sendable {
        let census: Census
        init(of census: Census) {
            self.census = census
            census.count.add(1, ordering: .relaxed)
        }
        deinit { census.count.subtract(1, ordering: .relaxed) }
    }
}
