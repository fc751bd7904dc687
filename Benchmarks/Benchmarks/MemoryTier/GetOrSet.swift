import Benchmark
import CacheSimulation
import Foundation
import ImagePipeline

/// Side by side in one run: a get-or-set stream (look up,
/// insert on a miss) through `MemoryCache` per policy, Foundation's `NSCache`, and a
/// bare `Dictionary` loop (no lock, no eviction: the ceiling), in thousands of
/// operations a second over the whole stream. The miss-heavy stream is Zipf(0.8)
/// over 100,000 keys with room for 10,000 (about 45 % hits); the hit-heavy one
/// is Zipf(0.8) over 11,000 keys with the same room (over 90 % hits). Two threads
/// each take half of the stream. `MemoryCache` rows use its get-or-insert call
/// (`value(for:orInsert:)`, one lock and one lookup); `lookup+insert` makes the two
/// calls. `16S`: the cache in 16 stripes, each with its own lock. `locked`: every hit takes the
/// lock (`lockFreeHits` off). `Nuke`: the peer users would
/// pick, Nuke 13.2.0's `Cache` (`NukeCache`: CLOCK behind one lock). `TextbookLRU`: the textbook
/// peer, a dictionary of nodes on a linked list behind one lock. `PlainLRU`: an exact LRU with
/// nothing a shared cache needs (no lock, no atomics, no generic key), the bound for one thread.
/// The third stream is images': Zipf(1.0) over 1,000,000 keys, each costing 40–240 KB, in 256 MiB
/// (one thread only; the count-limited bounds do not apply).
func getOrSetBenchmarks() {
    let opsPerSecond = BenchmarkMetric.custom("ops/s (k)", polarity: .prefersLarger, useScalingFactor: false)
    let counted = CacheLimits(costLimit: .max, countLimit: 10_000, maxEntryFraction: 1)
    let streams: [(name: String, keys: @Sendable () -> [Int], limits: CacheLimits, cost: @Sendable (Int) -> Int)] = [
        ("zipf-0.8 100k keys", { GetOrSetStreams.missHeavy }, counted, { _ in 1 }),
        ("zipf-0.8 11k keys", { GetOrSetStreams.hitHeavy }, counted, { _ in 1 }),
        ("zipf-1.0 1M keys 256MiB", { GetOrSetStreams.images },
         CacheLimits(costLimit: 256 << 20, countLimit: .max, maxEntryFraction: 1), { 40_000 + $0 &* 7_919 % 201 * 1_000 }),
    ]
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, opsPerSecond], maxDuration: .seconds(30), maxIterations: 5)

    for (name, keys, limits, cost) in streams {
        let imageCosts = limits.countLimit == .max
        for threads in imageCosts ? [1] : [1, 2] {
            let kinds: [EvictionPolicyKind] = [.lru, .clock, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU]
            for kind in kinds {
                for (label, stripes, lockFreeHits) in [("", 1, true), (" 16S", 16, true), (" locked", 1, false)] {
                    Benchmark("get-or-set \(name) MemoryCache \(kind)\(label) \(threads)T", configuration: configuration) { benchmark in
                        let cache = MemoryCache<Int, Int>(.init(
                            limits: limits, policy: kind, stripes: CacheStripes(stripes), lockFreeHits: lockFreeHits))
                        measure(keys(), threads: threads, in: benchmark, reporting: opsPerSecond) { _, key in
                            blackHole(cache.value(for: key) { (key, cost(key)) })
                        }
                    }
                }
            }
            Benchmark("get-or-set \(name) MemoryCache lru lookup+insert \(threads)T", configuration: configuration) { benchmark in
                let cache = MemoryCache<Int, Int>(.init(limits: limits, policy: .lru))
                measure(keys(), threads: threads, in: benchmark, reporting: opsPerSecond) { _, key in
                    if cache.value(for: key) == nil { cache.insert(key, for: key, cost: cost(key)) }
                }
            }
            // The peer users would pick: Nuke's `Cache` as it ships (`NukeCache`). Its 10 %
            // entry cap takes no entry of these streams: every cost is under a 10th of the limit.
            Benchmark("get-or-set \(name) Nuke \(threads)T", configuration: configuration) { benchmark in
                let cache = NukeCache<Int, Int>(costLimit: limits.costLimit, countLimit: limits.countLimit)
                measure(keys(), threads: threads, in: benchmark, reporting: opsPerSecond) { _, key in
                    if cache.value(forKey: key) == nil { cache.set(key, forKey: key, cost: cost(key)) }
                }
            }
            // The textbook peer (`TextbookLRUCache`).
            Benchmark("get-or-set \(name) TextbookLRU \(threads)T", configuration: configuration) { benchmark in
                let cache = TextbookLRUCache<Int, Int>(costLimit: limits.costLimit, countLimit: limits.countLimit)
                measure(keys(), threads: threads, in: benchmark, reporting: opsPerSecond) { _, key in
                    if cache.value(for: key) == nil { cache.set(key, for: key, cost: cost(key)) }
                }
            }
            guard !imageCosts else { continue }
            Benchmark("get-or-set \(name) NSCache \(threads)T", configuration: configuration) { benchmark in
                let shared = SharedNSCache()
                shared.cache.countLimit = limits.countLimit
                let boxes = (0..<100_000).map { NSNumber(value: $0) }
                measure(keys(), threads: threads, in: benchmark, reporting: opsPerSecond) { _, key in
                    if shared.cache.object(forKey: boxes[key]) == nil { shared.cache.setObject(boxes[key], forKey: boxes[key]) }
                }
            }
        }
        guard !imageCosts else { continue }
        // Each thread its own cache and half of the stream: what two threads do on this machine with nothing shared.
        Benchmark("get-or-set \(name) MemoryCache lru separate caches 2T", configuration: configuration) { benchmark in
            let caches = [0, 1].map { _ in MemoryCache<Int, Int>(.init(limits: limits, policy: .lru)) }
            measure(keys(), threads: 2, in: benchmark, reporting: opsPerSecond) { thread, key in
                blackHole(caches[thread].value(for: key) { (key, 1) })
            }
        }
        // The bound for an exact LRU on one thread: no lock, no allocation, flat arrays. First
        // checked to hit exactly where MemoryCache's LRU hits, so the bound is an LRU's.
        Benchmark("get-or-set \(name) PlainLRU 1T", configuration: configuration) { benchmark in
            let check = PlainLRU(capacity: limits.countLimit)
            let reference = MemoryCache<Int, Int>(.init(limits: limits, policy: .lru))
            var hits = 0
            let stream = keys()
            for (index, key) in stream.enumerated() {
                if check.value(for: key, orInsert: index) != index { hits += 1 }
                _ = reference.value(for: key) { (key, 1) }
            }
            precondition(hits == reference.statistics.hits, "PlainLRU hit \(hits) times, LRU \(reference.statistics.hits)")
            let cache = PlainLRU(capacity: limits.countLimit)
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            for key in stream { blackHole(cache.value(for: key, orInsert: key)) }
            report(stream.count, since: start, in: benchmark, reporting: opsPerSecond, unit: 1e3)
        }
        Benchmark("get-or-set \(name) Dictionary 1T", configuration: configuration) { benchmark in
            var dictionary: [Int: Int] = [:]
            let stream = keys()
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            for key in stream where dictionary[key] == nil { dictionary[key] = key }
            report(stream.count, since: start, in: benchmark, reporting: opsPerSecond, unit: 1e3)
            blackHole(dictionary)
        }
    }
}

/// The three streams, made the first time a benchmark reads one rather than when the benchmarks
/// are declared (`Traces` says why).
private enum GetOrSetStreams {
    static let missHeavy = SimulationTrace.zipf(objects: 100_000, alpha: 0.8, requests: 4_000_000, seed: 18).keys.map(Int.init)
    static let hitHeavy = SimulationTrace.zipf(objects: 11_000, alpha: 0.8, requests: 4_000_000, seed: 18).keys.map(Int.init)
    static let images = SimulationTrace.zipf(objects: 1_000_000, alpha: 1.0, requests: 4_000_000, seed: 18).keys.map(Int.init)
}

/// Runs the whole stream, split among `threads` threads, measured.
private func measure(
    _ stream: [Int], threads: Int, in benchmark: Benchmark, reporting metric: BenchmarkMetric,
    _ operation: @escaping @Sendable (_ thread: Int, _ key: Int) -> Void
) {
    benchmark.startMeasurement()
    let start = ContinuousClock.now
    let group = DispatchGroup()
    let share = stream.count / threads
    for thread in 0..<threads {
        group.enter()
        Thread {
            for index in thread * share..<(thread + 1) * share { operation(thread, stream[index]) }
            group.leave()
        }.start()
    }
    group.wait()
    report(share * threads, since: start, in: benchmark, reporting: metric, unit: 1e3)
}
