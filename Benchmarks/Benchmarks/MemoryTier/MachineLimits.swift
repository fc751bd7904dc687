import Benchmark
import ImagePipeline

/// What the machine allows a loop over a large table, measured in the same run as the rows it
/// bounds: random reads of 8-byte words spread over 32 MB (about what a million keys' policy
/// metadata and fingerprints take, more than the last-level cache holds). `independent`: each
/// address is known ahead (a hash of the counter), so the core keeps several reads in flight,
/// as the simulator's look-ahead lets it; `dependent`: each address comes from the word read
/// before (a random cycle), one memory latency a read, as an evicting insert's victim is.
/// Millions of reads a second.
func machineLimitBenchmarks() {
    let readsPerSecond = BenchmarkMetric.custom("reads/s (M)", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(metrics: [.wallClock, readsPerSecond], maxIterations: 5)
    let reads = 10_000_000
    Benchmark("machine random reads independent 32MB", configuration: configuration) { benchmark in
        let cycle = randomCycle()
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        var sum = 0
        cycle.withUnsafeBufferPointer { table in
            for counter in 0..<reads {
                sum &+= table[Int(truncatingIfNeeded: (UInt64(counter) &* 0x9E37_79B9_7F4A_7C15) >> 42)]
            }
        }
        report(reads, since: start, in: benchmark, reporting: readsPerSecond, unit: 1e6)
        blackHole(sum)
    }
    Benchmark("machine random reads dependent 32MB", configuration: configuration) { benchmark in
        let cycle = randomCycle()
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        var position = 0
        cycle.withUnsafeBufferPointer { table in
            for _ in 0..<reads { position = table[position] }
        }
        report(reads, since: start, in: benchmark, reporting: readsPerSecond, unit: 1e6)
        blackHole(position)
    }
}

/// 4 M words (32 MB), each the index of the next in one random cycle through all of them
/// (Sattolo's shuffle), so a chase never settles in a short loop. Built when a benchmark runs,
/// not when the target lists its benchmarks.
private func randomCycle() -> [Int] {
    var next = Array(0..<(1 << 22))
    var random = SplitMix64(seed: 42)
    for index in stride(from: next.count - 1, to: 0, by: -1) {
        next.swapAt(index, Int(random.next() % UInt64(index)))
    }
    return next
}
