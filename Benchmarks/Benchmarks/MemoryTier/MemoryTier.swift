import Benchmark
import Tolerances
import Foundation
import ImagePipeline
import CacheSimulation
import Synchronization

/// The memory tier's speed targets: the simulator's requests per second per
/// policy on a 2-million-request Zipf trace, and the live cache against a real
/// NSCache on the same access streams with one and two threads.
let benchmarks: @Sendable () -> Void = {
    defer { Tolerances.apply() }
    let requestsPerSecond = BenchmarkMetric.custom("requests/s (M)", polarity: .prefersLarger, useScalingFactor: false)

    for kind in EvictionPolicyKind.allCases where kind != .nsCache {
        Benchmark(
            "simulate_\(kind)_zipf-0.8_2M",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, requestsPerSecond], maxIterations: 10,
                thresholds: Tolerances.with(speed: requestsPerSecond))
        ) { benchmark in
            let configuration = SimulationConfiguration(
                limits: CacheLimits(costLimit: 1_000, maxEntryFraction: 1), policy: kind)
            simulate(Traces.zipf, configuration, in: benchmark, reporting: requestsPerSecond)
        }
    }

    // Reading a public trace: the same 2 M requests as an oracleGeneral file (libCacheSim's
    // binary format), object mode, read and interned as `simulate` reads it. Its allocations are
    // a few per 3 MB block and the columns' growth, none per record: gated.
    let oracleGeneral = FileManager.default.temporaryDirectory.appendingPathComponent("icb-bench-zipf-0.8-2M.oracleGeneral").path
    Benchmark(
        "read_oracleGeneral_zipf-0.8_2M",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, requestsPerSecond], maxIterations: 10,
            thresholds: Tolerances.with(speed: requestsPerSecond))
    ) { benchmark in
        if !FileManager.default.fileExists(atPath: oracleGeneral) { try writeOracleGeneral(Traces.zipf, to: oracleGeneral) }
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        let trace = try OracleGeneralTrace.read(oracleGeneral, objects: true)
        report(trace.count, since: start, in: benchmark, reporting: requestsPerSecond, unit: 1e6)
        precondition(trace.count == Traces.zipf.count, "the file holds the Zipf trace")
    }

    // The same file simulated while it is read (`PlainTraceStream`, as `simulate --no-bounds` runs a
    // trace file): the reader and the run on two threads. Its allocations are a few per chunk of
    // 131,072 records and per 3 MB block read, none per record: gated.
    Benchmark(
        "simulate_streamed_lru_oracleGeneral_zipf-0.8_2M",
        configuration: .init(
            metrics: [.wallClock, .mallocCountTotal, requestsPerSecond], maxIterations: 10,
            thresholds: Tolerances.with(speed: requestsPerSecond))
    ) { benchmark in
        if !FileManager.default.fileExists(atPath: oracleGeneral) { try writeOracleGeneral(Traces.zipf, to: oracleGeneral) }
        let configuration = SimulationConfiguration(limits: CacheLimits(costLimit: 1_000, maxEntryFraction: 1), policy: .lru)
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        let stream = PlainTraceStream(name: "zipf") { publish in
            try OracleGeneralTrace.stream(oracleGeneral, objects: true, publish: publish)
        }
        let result = CacheSimulator.run(stream.cursors(1)[0], configuration)
        try stream.finished()
        report(result.requests, since: start, in: benchmark, reporting: requestsPerSecond, unit: 1e6)
        precondition(result.requests == Traces.zipf.count, "the stream holds the Zipf trace")
    }

    // Each committed dataset under the default configuration (100 MiB memory, 150 MB disk,
    // normalized keys, the trace's warnings, relaunches and devices): what `simulate` runs.
    let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("datasets")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: datasets.path)) ?? []).filter { $0.hasSuffix(".jsonl.gz") }.sorted()
    for name in names {
        for kind in [EvictionPolicyKind.lru, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU] {
            Benchmark(
                "simulate \(kind) \(name)",
                configuration: .init(
                    metrics: [.wallClock, .mallocCountTotal, requestsPerSecond], maxIterations: 50,
                    thresholds: Tolerances.with(speed: requestsPerSecond))
            ) { benchmark in
                let configuration = SimulationConfiguration(
                    limits: CacheLimits(costLimit: ReplayDefaults.memoryBytes), policy: kind,
                    disk: .init(byteLimit: ReplayDefaults.diskBytes))
                simulate(try Traces.dataset(datasets.appendingPathComponent(name).path), configuration, in: benchmark, reporting: requestsPerSecond)
            }
        }
    }

    // The same Zipf stream of keys for the live caches: get, insert on a miss.
    // Costs vary per key like decoded thumbnails (40–240 KB); the limit holds
    // about 1,000 of them.
    let limits = CacheLimits(costLimit: 1_000 * 140_000)
    @Sendable func cost(_ key: Int) -> Int { 40_000 + key &* 7_919 % 201 * 1_000 }

    // Each policy on its own: a miss (a key never inserted) and an insert that evicts (the cache
    // is full of 1,000 entries and every insert is a new key), one thread.
    for kind in EvictionPolicyKind.allCases where kind != .nsCache {
        Benchmark(
            "MemoryCache \(kind) get-miss 1T",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
        ) { benchmark in
            let cache = MemoryCache<Int, Int>(.init(limits: limits, policy: kind))
            for key in 0..<1_000 { cache.insert(key, for: key, cost: cost(key)) }
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations { blackHole(cache.value(for: 1_000_000 + index % 1_000)) }
        }
        Benchmark(
            "MemoryCache \(kind) insert-evicting 1T",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo)
        ) { benchmark in
            let cache = MemoryCache<Int, Int>(.init(limits: limits, policy: kind))
            for key in 0..<1_000 { cache.insert(key, for: key, cost: 140_000) }
            benchmark.startMeasurement()
            for index in benchmark.scaledIterations { cache.insert(index, for: 10_000 + index, cost: 140_000) }
        }
    }

    getOrSetBenchmarks()
    machineLimitBenchmarks()
    pipelineHitBenchmarks()

    for threads in [1, 2] {
        for kind in [EvictionPolicyKind.lru, .sieve, .s3fifo(moveToMainThreshold: 1), .wTinyLFU] {
            Benchmark(
                "MemoryCache \(kind) get-or-insert \(threads)T",
                configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
            ) { benchmark in
                // The stream is made before the measurement starts; the cache is made inside it, with the run.
                let stream = Traces.zipfKeys
                benchmark.startMeasurement()
                let cache = MemoryCache<Int, Int>(.init(limits: limits, policy: kind))
                run(threads: threads, iterations: benchmark.scaledIterations.count, stream: stream) { key in
                    if cache.value(for: key) == nil { cache.insert(key, for: key, cost: cost(key)) }
                }
            }
        }
        Benchmark(
            "NSCache get-or-insert \(threads)T",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
        ) { benchmark in
            let stream = Traces.zipfKeys
            benchmark.startMeasurement()
            let shared = SharedNSCache()
            shared.cache.totalCostLimit = limits.costLimit
            run(threads: threads, iterations: benchmark.scaledIterations.count, stream: stream) { key in
                let boxed = NSNumber(value: key)
                if shared.cache.object(forKey: boxed) == nil { shared.cache.setObject(boxed, forKey: boxed, cost: cost(key)) }
            }
        }

        Benchmark(
            "MemoryCache lru get-hit \(threads)T",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
        ) { benchmark in
            let cache = MemoryCache<Int, Int>(.init(limits: limits, policy: .lru))
            for key in 0..<1_000 { cache.insert(key, for: key, cost: cost(key)) }
            benchmark.startMeasurement()
            run(threads: threads, iterations: benchmark.scaledIterations.count, stream: Array(0..<1_000)) { key in
                blackHole(cache.value(for: key))
            }
        }
        Benchmark(
            "NSCache get-hit \(threads)T",
            configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega)
        ) { benchmark in
            let shared = SharedNSCache()
            for key in shared.keys { shared.cache.setObject(key, forKey: key, cost: cost(key.intValue)) }
            benchmark.startMeasurement()
            run(threads: threads, iterations: benchmark.scaledIterations.count, stream: Array(0..<1_000)) { key in
                blackHole(shared.cache.object(forKey: shared.keys[key]))
            }
        }
    }
}

/// The traces the benchmarks run, made the first time one is read rather than when the benchmarks
/// are declared: the harness starts this executable once for each benchmark it runs, and each
/// start declares them all.
enum Traces {
    static let zipf = SimulationTrace.zipf(objects: 10_000, alpha: 0.8, requests: 2_000_000, seed: 2024)
    /// The Zipf trace's first 200,000 keys, for the live caches.
    static let zipfKeys = zipf.keys.prefix(200_000).map(Int.init)
    private static let datasets = Mutex<[String: SimulationTrace]>([:])

    /// The committed dataset at `path` as `simulate` runs it (the default key strategy), read once.
    static func dataset(_ path: String) throws -> SimulationTrace {
        if let trace = datasets.withLock({ $0[path] }) { return trace }
        let trace = try RecordedWorkload.load(path: path).simulationTrace(strategy: ReplayDefaults.keyStrategy)
        datasets.withLock { $0[path] = trace }
        return trace
    }
}

/// One simulation run, measured, with its speed in millions of requests a second.
func simulate(_ trace: SimulationTrace, _ configuration: SimulationConfiguration, in benchmark: Benchmark, reporting metric: BenchmarkMetric) {
    benchmark.startMeasurement()
    let start = ContinuousClock.now
    let result = CacheSimulator.run(trace, configuration)
    report(trace.count, since: start, in: benchmark, reporting: metric, unit: 1e6)
    blackHole(result)
}

/// Ends the measurement begun at `start` and records `count` done in that time, in `unit`s a
/// second (1e3: thousands, 1e6: millions).
func report(_ count: Int, since start: ContinuousClock.Instant, in benchmark: Benchmark, reporting metric: BenchmarkMetric, unit: Double) {
    let elapsed = ContinuousClock.now - start
    benchmark.stopMeasurement()
    let seconds = Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds)
    benchmark.measurement(metric, Int(Double(count) / seconds / unit))
}

/// `trace` as libCacheSim's oracleGeneral file (24 bytes a request: u32 seconds, u64 object id,
/// u32 size, i64 next access), its keys spread over 64-bit ids as a public trace's are.
func writeOracleGeneral(_ trace: SimulationTrace, to path: String) throws {
    var records = Data(capacity: trace.count * 24)
    for (index, key) in trace.keys.enumerated() {
        withUnsafeBytes(of: UInt32(index / 1_000).littleEndian) { records.append(contentsOf: $0) }
        withUnsafeBytes(of: (UInt64(key) &* 0x9E37_79B9_7F4A_7C15).littleEndian) { records.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt32(4_096).littleEndian) { records.append(contentsOf: $0) }
        withUnsafeBytes(of: Int64(-1).littleEndian) { records.append(contentsOf: $0) }
    }
    try records.write(to: URL(fileURLWithPath: path), options: .atomic)
}

/// Splits `iterations` operations over the stream among `threads` threads and waits for all.
func run(threads: Int, iterations: Int, stream: [Int], _ operation: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for thread in 0..<threads {
        group.enter()
        Thread {
            var index = thread * 7_919
            for _ in 0..<(iterations / threads) {
                operation(stream[index % stream.count])
                index &+= 1
            }
            group.leave()
        }.start()
    }
    group.wait()
}

/// NSCache is documented thread-safe (corelibs guards it with an NSLock) but is
/// not annotated Sendable; this box says so once.
final class SharedNSCache: @unchecked Sendable {
    let cache = NSCache<NSNumber, NSNumber>()
    let keys = (0..<1_000).map { NSNumber(value: $0) }
}
