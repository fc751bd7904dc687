import Benchmark
import ImagePipeline

/// What the machine allows a loop over a table, measured in the same run as the rows it
/// bounds: random reads of 8-byte words spread over 1 MB (about what the get-or-set rows' and
/// the 10,000-object simulate rows' cache of 10,000 entries takes: it stays in the core's own
/// cache), 32 MB (a million keys' policy metadata and fingerprints, more than the core's cache
/// holds) and 256 MB (the whole of the 10 M-request comparison with libCacheSim: columns, id
/// table and metadata). `independent`: each address is known ahead (a hash of the counter), so
/// the core keeps several reads in flight, as the simulator's look-ahead lets it; `dependent`:
/// each address comes from the word read before (a random cycle), one memory latency a read,
/// as an evicting insert's victim is. Millions of reads a second.
func machineLimitBenchmarks() {
    let readsPerSecond = BenchmarkMetric.custom("reads/s (M)", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(metrics: [.wallClock, readsPerSecond], maxIterations: 5)
    let reads = 10_000_000
    for megabytes in [1, 32, 256] {
        let words = megabytes << 17
        Benchmark("machine random reads independent \(megabytes)MB", configuration: configuration) { benchmark in
            let cycle = randomCycle(words: words)
            let shift = UInt64(64 - words.trailingZeroBitCount)
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            var sum = 0
            cycle.withUnsafeBufferPointer { table in
                for counter in 0..<reads {
                    sum &+= table[Int(truncatingIfNeeded: (UInt64(counter) &* 0x9E37_79B9_7F4A_7C15) >> shift)]
                }
            }
            report(reads, since: start, in: benchmark, reporting: readsPerSecond, unit: 1e6)
            blackHole(sum)
        }
        Benchmark("machine random reads dependent \(megabytes)MB", configuration: configuration) { benchmark in
            let cycle = randomCycle(words: words)
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
}

/// `words` words (a power of two), each the index of the next in one random cycle through all
/// of them (Sattolo's shuffle), so a chase never settles in a short loop. Built when a benchmark
/// runs, not when the target lists its benchmarks.
private func randomCycle(words: Int) -> [Int] {
    var next = Array(0..<words)
    var random = SplitMix64(seed: 42)
    for index in stride(from: next.count - 1, to: 0, by: -1) {
        next.swapAt(index, Int(random.next() % UInt64(index)))
    }
    return next
}
