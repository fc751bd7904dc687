import Benchmark
import Foundation
import Tolerances
import Workloads

/// Reading JSON Lines traces: the five committed app datasets, about 119,000
/// events, read through `TraceReader` from their `.jsonl.gz` files and from plain
/// `.jsonl` copies, against the decoder it replaced (`JSONDecoder` on each line) in the
/// same run. Events a second, in thousands, over all five files.
let benchmarks: @Sendable () -> Void = {
    defer { Tolerances.apply() }
    let eventsPerSecond = BenchmarkMetric.custom("events/s (k)", polarity: .prefersLarger, useScalingFactor: false)
    let configuration = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, eventsPerSecond], maxIterations: 10)
    let compressed = ["articleproject", "headlines", "mymarket", "picterest", "vanilladin"].map {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../datasets/\($0).jsonl.gz").standardized.path
    }
    // Plain copies, kept in the temporary folder between runs; named by the compressed
    // file's size, so a re-recorded dataset gets a new copy.
    let plain = compressed.map { path in
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let copy = FileManager.default.temporaryDirectory
            .appendingPathComponent("icb-bench-\(size)-\(URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent)").path
        if !FileManager.default.fileExists(atPath: copy) {
            var reader = try! TraceReader(path: path)
            let writer = try! TraceWriter(path: copy, header: reader.header)
            while let event = try! reader.next() { try! writer.append(event) }
            try! writer.close()
        }
        return copy
    }

    for (name, files) in [("jsonl.gz", compressed), ("jsonl", plain)] {
        Benchmark("read traces TraceReader \(name)", configuration: configuration) { benchmark in
            benchmark.startMeasurement()
            let start = ContinuousClock.now
            var events = 0
            for file in files {
                var reader = try TraceReader(path: file)
                while let event = try reader.next() {
                    events += 1
                    blackHole(event)
                }
            }
            report(events, since: start, in: benchmark, reporting: eventsPerSecond)
        }
    }
    Benchmark("read traces JSONDecoder per line jsonl", configuration: configuration) { benchmark in
        let contents = try plain.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        benchmark.startMeasurement()
        let start = ContinuousClock.now
        var events = 0
        let decoder = JSONDecoder()
        for data in contents {
            for line in data.split(separator: UInt8(ascii: "\n")).dropFirst() {
                blackHole(try decoder.decode(TraceEvent.self, from: line))
                events += 1
            }
        }
        report(events, since: start, in: benchmark, reporting: eventsPerSecond)
    }
}

private func report(_ events: Int, since start: ContinuousClock.Instant, in benchmark: Benchmark, reporting metric: BenchmarkMetric) {
    let elapsed = ContinuousClock.now - start
    benchmark.stopMeasurement()
    let seconds = Double(elapsed.components.attoseconds) * 1e-18 + Double(elapsed.components.seconds)
    benchmark.measurement(metric, Int(Double(events) / seconds / 1e3))
}
