import Foundation
import Synchronization
import Testing
@testable import CacheEngine

@Suite("MemoryCache")
struct MemoryCacheTests {
    typealias Cache = MemoryCache<String, String>

    func cache(_ costLimit: Int = 100, count: Int = .max, policy: EvictionPolicyKind = .lru,
               ttl: Duration? = nil, onEviction: Cache.EvictionHandler? = nil) -> Cache {
        Cache(.init(limits: CacheLimits(costLimit: costLimit, countLimit: count, maxEntryFraction: 0.5),
                    policy: policy, timeToLive: ttl), onEviction: onEviction)
    }

    @Test func storesReplacesAndRemoves() {
        let cache = cache()
        #expect(cache.value(for: "a") == nil)
        #expect(cache.insert("1", for: "a", cost: 10))
        #expect(cache.value(for: "a") == "1")
        cache.insert("2", for: "a", cost: 30)
        #expect(cache.value(for: "a") == "2")
        #expect(cache.totalCost == 30)
        #expect(cache.count == 1)
        #expect(cache.remove("a") == "2")
        #expect(cache.value(for: "a") == nil)
        #expect(cache.totalCost == 0)
        let stats = cache.statistics
        #expect((stats.hits, stats.misses, stats.insertions, stats.removals) == (2, 2, 2, 2))
        #expect(stats.resident == 0)
    }

    @Test("cost and count limits evict, and the handler hears why")
    func limitsAndHandler() {
        let heard = Locked<[String]>([])
        let cache = cache(100, count: 3) { key, _, reason in heard.withLock { $0.append("\(key):\(reason)") } }
        for key in ["a", "b", "c", "d"] { cache.insert(key, for: key, cost: 20) }  // d: count limit, a goes
        #expect(cache.count == 3)
        cache.insert("e", for: "e", cost: 50)  // b, c, d cost 60; 60 + 50 > 100: b goes
        #expect(cache.totalCost == 90)
        #expect(heard.withLock { $0 } == ["a:capacity", "b:capacity"])
    }

    @Test("an entry over the per-entry fraction is refused and counted")
    func oversizedEntry() {
        let cache = cache(100)
        #expect(!cache.insert("huge", for: "x", cost: 51))
        #expect(cache.value(for: "x") == nil)
        #expect(cache.statistics.rejections == 1)
    }

    @Test func trims() {
        let cache = cache(100)
        for index in 0..<5 { cache.insert("\(index)", for: "\(index)", cost: 20) }
        cache.trim(toFraction: 0.5)
        #expect(cache.totalCost == 40)
        #expect(cache.value(for: "4") != nil)  // LRU kept the newest
        cache.trim(toCost: 0)
        #expect(cache.count == 0)
        #expect(cache.statistics.trimmed == 5)
    }

    // Intervals of hundreds of milliseconds: a loaded machine may stall a task
    // for tens between two lines.
    @Test("entries expire after their time-to-live")
    func timeToLive() async throws {
        let cache = cache(ttl: .milliseconds(500))
        cache.insert("v", for: "k", cost: 1)
        #expect(cache.value(for: "k") == "v")
        try await Task.sleep(for: .milliseconds(700))
        #expect(cache.value(for: "k") == nil)
        #expect(cache.statistics.expirations == 1)
    }

    @Test("trimIdle keeps what was used recently")
    func trimIdle() async throws {
        let cache = cache()
        cache.insert("old", for: "old", cost: 1)
        try await Task.sleep(for: .milliseconds(700))
        cache.insert("new", for: "new", cost: 1)
        cache.trimIdle(olderThan: .milliseconds(350))
        #expect(cache.value(for: "old") == nil)
        #expect(cache.value(for: "new") == "new")
    }

    @Test("many tasks with memory warnings: limits hold, counters add up", arguments: [EvictionPolicyKind.lru, .clock, .s3fifo(moveToMainThreshold: 1), .wTinyLFU])
    func concurrentStress(_ kind: EvictionPolicyKind) async {
        let evictedCount = Atomic<Int>(0)
        let cache = MemoryCache<Int, Int>(
            .init(limits: CacheLimits(costLimit: 20_000, countLimit: 500), policy: kind)
        ) { _, _, _ in evictedCount.add(1, ordering: .relaxed) }
        let lookups = 8 * 20_000
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var generator = SplitMix64(seed: UInt64(worker))
                    for step in 0..<20_000 {
                        let key = Int(generator.next() % 2_000)
                        if cache.value(for: key) == nil { cache.insert(key, for: key, cost: 10 + key % 90) }
                        if step % 2_500 == 0 { cache.respond(to: worker % 2 == 0 ? .trimToFraction(0.3) : .purgeAll) }
                        #expect(cache.totalCost <= 20_000)
                    }
                }
            }
        }
        let stats = cache.statistics
        #expect(stats.lookups == lookups)
        #expect(stats.resident == cache.count)
        #expect(evictedCount.load(ordering: .relaxed) == stats.evictions + stats.trimmed)
        #expect(cache.count <= 500)
    }

    /// Every key hashes alike, so each lookup walks one long probe run and compares keys:
    /// the cache must still answer exactly as a dictionary of what it holds.
    @Test("keys that all hash alike are still told apart")
    func collidingKeys() {
        let cache = MemoryCache<CollidingKey, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 100, maxEntryFraction: 1)))
        var resident: [Int: Int] = [:]
        let evicted = Locked<[Int]>([])
        let tracked = MemoryCache<CollidingKey, Int>(
            .init(limits: CacheLimits(costLimit: .max, countLimit: 100, maxEntryFraction: 1))
        ) { key, _, _ in evicted.withLock { $0.append(key.id) } }
        for id in 0..<500 {
            cache.insert(id * 3, for: CollidingKey(id: id), cost: 1)
            tracked.insert(id * 3, for: CollidingKey(id: id), cost: 1)
            resident[id] = id * 3
            for gone in evicted.withLock({ list in defer { list = [] }; return list }) { resident[gone] = nil }
        }
        #expect(resident.count == 100 && cache.count == 100)
        for id in 0..<500 { #expect(tracked.value(for: CollidingKey(id: id)) == resident[id]) }
        #expect(cache.remove(CollidingKey(id: 499)) == 499 * 3)
        #expect(cache.value(for: CollidingKey(id: 499)) == nil)
        #expect(cache.value(for: CollidingKey(id: 498)) == 498 * 3)
    }

    @Test("a lookup by hash and match finds what a lookup by key finds")
    func lookupByHash() {
        let cache = Cache(.init(limits: CacheLimits(costLimit: 1_000)))
        cache.insert("cover", for: "https://img.example/a.jpg", cost: 10)
        let key = "https://img.example/a.jpg"
        #expect(cache.value(forHash: key.hashValue, fingerprint: key.cacheFingerprint) { $0 == key } == "cover")
        #expect(cache.value(forHash: key.hashValue, fingerprint: key.cacheFingerprint) { _ in false } == nil)
        #expect(cache.value(forHash: key.hashValue &+ 1, fingerprint: key.cacheFingerprint) { $0 == key } == nil)
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 2)
    }

    @Test("a lookup by UTF-8 bytes finds what a lookup by the string finds", arguments: [
        "", "a", "https://img.example/a.jpg", "https://newsapi.example/p/840_560.jpeg 120x80@3.0x,jpeg",
        String(repeating: "x", count: 1_000), "https://img.example/café.jpg", "https://img.example/cafe\u{301}.jpg",
    ])
    func lookupByUTF8(_ key: String) {
        let cache = Cache(.init(limits: CacheLimits(costLimit: 1_000)))
        cache.insert("cover", for: key, cost: 10)
        cache.insert("other", for: key + "!", cost: 10)
        var bytes = Array(key.utf8)
        #expect(bytes.withUnsafeBufferPointer { cache.value(forUTF8: $0) } == cache.value(for: key))
        bytes.append(UInt8(ascii: "?"))
        #expect(bytes.withUnsafeBufferPointer { cache.value(forUTF8: $0) } == nil)
    }

    /// The lookup by bytes hashes an ASCII key as `String` does; if the standard library
    /// ever hashes strings otherwise, this fails (and memory hits would turn into misses).
    @Test("an ASCII string hashes as its UTF-8 bytes followed by 0xFF")
    func stringHashing() {
        for length in [0, 1, 7, 8, 15, 16, 17, 63, 64, 200] {
            let text = String((0..<length).map { Character(Unicode.Scalar(UInt8(33 + $0 % 90))) })
            var hasher = Hasher()
            Array(text.utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
            hasher.combine(UInt8(0xFF))
            #expect(hasher.finalize() == text.hashValue, "length \(length)")
        }
    }

    /// Values held by reference, counted alive: the cache keeps exactly what it stores,
    /// lets go of what it evicts, replaces or removes, and of the rest when it goes.
    @Test("holds a value exactly while it is stored, and nothing once it is gone", arguments: [EvictionPolicyKind.lru, .s3fifo(moveToMainThreshold: 1)])
    func releasesValues(policy: EvictionPolicyKind) {
        let census = Census()
        do {
            let cache = MemoryCache<Int, Census.Member>(
                .init(limits: CacheLimits(costLimit: .max, countLimit: 100, maxEntryFraction: 1), policy: policy))
            for key in 0..<1_000 { cache.insert(Census.Member(of: census), for: key % 300, cost: 1) }
            for key in stride(from: 0, to: 300, by: 7) { cache.remove(key) }
            for key in 0..<50 { _ = cache.value(for: key + 1_000) { (Census.Member(of: census), 1) } }
            #expect(cache.count > 50)
            #expect(census.alive == cache.count)
        }
        #expect(census.alive == 0)
    }

    /// A hit on an entry whose hit at the same time is already logged logs nothing
    /// (`SlotShadows`) but still counts; once the hand clears the entry's mark, the next
    /// hit logs again, so the entry keeps its second chance.
    @Test("hits that need no log count, and a mark the hand cleared is set again", arguments: [EvictionPolicyKind.clock, .sieve, .fifo])
    func hitsSkipLogsOnlyWhileMarked(policy: EvictionPolicyKind) {
        let cache = MemoryCache<String, Int>(
            .init(limits: CacheLimits(costLimit: .max, countLimit: 2, maxEntryFraction: 1), policy: policy))
        #expect(cache.hitsSkipLogs)
        cache.insert(1, for: "a", cost: 1)
        cache.insert(2, for: "b", cost: 1)
        for _ in 0..<1_000 { #expect(cache.value(for: "a") == 1) }
        #expect(cache.statistics.hits == 1_000)
        cache.insert(3, for: "c", cost: 1)
        guard policy != .fifo else {
            // FIFO evicts the oldest whatever its hits.
            #expect(cache.value(for: "a") == nil)
            return
        }
        // The hand cleared a's mark to pass it (b left); a's next hit sets it again, so the
        // hand passes a once more and c leaves.
        #expect(cache.value(for: "a") == 1)
        cache.insert(4, for: "d", cost: 1)
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "c") == nil)
        #expect(cache.statistics.hits == 1_002)
    }

    /// Epoch-based reclamation: with no reader inside, what leaves is freed at once and the
    /// epoch, which every reader reads, stays as it is; a reader inside holds back everything
    /// that leaves from then on, and the first writer after it leaves frees it.
    @Test("frees what leaves at once, unless a reader is inside, and then once it leaves")
    func reclaimsAroundReaders() {
        let census = Census()
        let cache = MemoryCache<Int, Census.Member>(
            .init(limits: CacheLimits(costLimit: .max, countLimit: 10, maxEntryFraction: 1), policy: .lru))
        let epoch = { cache.stripes.epoch(0).pointee.load(ordering: .relaxed) }
        for key in 0..<20 { cache.insert(Census.Member(of: census), for: key, cost: 1) }
        #expect(census.alive == 10)
        #expect(epoch() == 1)

        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), left = DispatchSemaphore(value: 0)
        let inside = Atomic<Bool>(false)
        Thread {
            _ = cache.stripes.read(0) { _, _, reader -> Int? in
                reader.enter()
                inside.store(true, ordering: .relaxed)
                entered.signal()
                release.wait()
                return nil
            }
            // A thread with no record (every number held by live threads) reads nothing.
            if !inside.load(ordering: .relaxed) { entered.signal() }
            left.signal()
        }.start()
        entered.wait()
        guard inside.load(ordering: .relaxed) else {
            Issue.record("the reading thread got no record: more than \(ThreadIndex.capacity) threads hold one")
            release.signal()
            return
        }
        for key in 20..<25 { cache.insert(Census.Member(of: census), for: key, cost: 1) }
        #expect(census.alive == 15, "the five evicted stay while a reader is inside")
        #expect(epoch() > 1)
        release.signal()
        left.wait()
        cache.insert(Census.Member(of: census), for: 25, cost: 1)
        #expect(census.alive == 10)
        #expect(cache.count == 10)
    }
}

/// Hits taken without the lock: logged by the reading thread, applied by the next writer.
@Suite("MemoryCache: hits without the lock")
struct LockFreeHitTests {
    @Test("a hit read without the lock counts before the next eviction")
    func loggedHitBeforeEviction() {
        let cache = MemoryCache<String, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 3, maxEntryFraction: 1)))
        #expect(cache.hitsWithoutLock)
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
    /// `whileLocked` forces it), and counts the same, through trims and expiry.
    @Test("one thread: the same answers and counts as with the lock for every hit", arguments: EvictionPolicyKind.allCases)
    func sameAsLocked(_ kind: EvictionPolicyKind) {
        let limits = CacheLimits(costLimit: 4_000, countLimit: 60, maxEntryFraction: 0.2)
        let logged = MemoryCache<Int, Int>(.init(limits: limits, policy: kind))
        let locked = MemoryCache<Int, Int>(.init(limits: limits, policy: kind))
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
            if found == nil {
                #expect(logged.insert(key, for: key, cost: cost) == locked.insert(key, for: key, cost: cost))
            }
            if step % 5_000 == 4_999 {
                logged.trim(toFraction: 0.5)
                locked.trim(toFraction: 0.5)
            }
            if step % 7_001 == 7_000 {
                logged.remove(key)
                locked.remove(key)
            }
        }
        #expect(logged.statistics == locked.statistics)
        #expect(logged.count == locked.count && logged.totalCost == locked.totalCost)
    }

    /// Readers beside writers that remove, replace, trim, purge and let entries expire: what
    /// a reader reads must stay whole until it is done (run under `scripts/sanitizers thread`,
    /// where ThreadSanitizer checks it), and every request is counted once.
    @Test("readers beside writers that remove, replace, trim and expire: counted once, limits held",
          arguments: [EvictionPolicyKind.lru, .clock, .sieve, .wTinyLFU, .arc, .lirs])
    func readersBesideWriters(_ kind: EvictionPolicyKind) async {
        for timeToLive in [nil, Duration.milliseconds(2)] {
            let cache = MemoryCache<String, [Int]>(
                .init(limits: CacheLimits(costLimit: 50_000, countLimit: 300), policy: kind, timeToLive: timeToLive))
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
            #expect(statistics.lookups == lookups, "\(kind), time to live \(String(describing: timeToLive))")
            #expect(statistics.resident == cache.count && cache.count <= 300 && cache.totalCost <= 50_000)
        }
    }

    @Test("LIRS and libCacheSim's W-TinyLFU, whose hits may evict, take the lock for every hit")
    func policiesThatCannotWait() {
        for kind in [EvictionPolicyKind.lirs, .wTinyLFULibCacheSim] {
            let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 10), policy: kind))
            #expect(!cache.hitsWithoutLock, "\(kind)")
        }
        for kind in [EvictionPolicyKind.lru, .fifo, .clock, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU, .arc, .twoQ, .gdsf(missCost: .download), .nsCache] {
            let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 10), policy: kind))
            #expect(cache.hitsWithoutLock, "\(kind)")
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
        let cache = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: .max, countLimit: 200, maxEntryFraction: 1), policy: kind))
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

/// A key whose hash says nothing: every instance hashes alike.
struct CollidingKey: Hashable, Sendable, CacheFingerprintable {
    var id: Int
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
    var cacheFingerprint: UInt64 { UInt64(id) }
}
