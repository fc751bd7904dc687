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

    @Test("a string key is filed by its hashValue, which the lookup by UTF-8 bytes works out; an integer key by its own seeded hash")
    func indexHashes() {
        let strings = Cache(.init(limits: CacheLimits(costLimit: 1_000)))
        let key = "https://img.example/a.jpg"
        #expect(strings.indexHash(of: key) == key.hashValue)
        let first = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: 1_000)))
        let second = MemoryCache<Int, Int>(.init(limits: CacheLimits(costLimit: 1_000)))
        // Each cache draws its own seed, so an integer key is filed apart from its hashValue, and
        // keys that collide in one cache's index do not in another's.
        let keys = Array(0..<64)
        #expect(keys.map(first.indexHash(of:)) != keys.map(second.indexHash(of:)))
        #expect(keys.map(first.indexHash(of:)) != keys.map(\.hashValue))
        for key in keys { first.insert(key * 7, for: key, cost: 1) }
        for key in keys {
            #expect(first.value(forHash: first.indexHash(of: key), fingerprint: key.cacheFingerprint) { $0 == key } == key * 7)
        }
        // Spread as the table needs, even for ids that share their low bits: 1,024 multiples of
        // 4,096 over 2,048 homes (the index at its fullest) leave no home with more than a few
        // (a random spread exceeds 8 about once in 150,000 draws).
        var homes = [Int: Int]()
        for id in 0..<1_024 { homes[first.indexHash(of: id << 12) & 2_047, default: 0] += 1 }
        #expect(homes.values.max()! <= 8)
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
            .init(limits: CacheLimits(costLimit: .max, countLimit: 10, maxEntryFraction: 1), policy: .lru, lockFreeHits: true))
        let epoch = { cache.stripes.epoch(0).pointee.load(ordering: .relaxed) }
        for key in 0..<20 { cache.insert(Census.Member(of: census), for: key, cost: 1) }
        #expect(census.alive == 10)
        #expect(epoch() == 1)

        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), left = DispatchSemaphore(value: 0)
        let inside = Atomic<Bool>(false)
        // A thread with no record (every number held by live threads: other tests' threads, when
        // tests run in parallel) reads nothing and leaves; another is started once one may be free.
        for attempt in 1... {
            Thread {
                _ = cache.stripes.read(0) { _, _, reader -> Int? in
                    reader.enter()
                    inside.store(true, ordering: .relaxed)
                    entered.signal()
                    release.wait()
                    return nil
                }
                if !inside.load(ordering: .relaxed) { entered.signal() }
                left.signal()
            }.start()
            entered.wait()
            if inside.load(ordering: .relaxed) { break }
            left.wait()
            guard attempt < 500 else {
                Issue.record("the reading thread got no record in 10 s: more than \(ThreadIndex.capacity) threads hold one")
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
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

/// A key whose hash says nothing: every instance hashes alike.
struct CollidingKey: Hashable, Sendable, CacheFingerprintable {
    var id: Int
    func hash(into hasher: inout Hasher) { hasher.combine(0) }
    var cacheFingerprint: UInt64 { UInt64(id) }
}
