import Foundation
import Testing
import CacheEngine
@testable import CacheSimulation
import ImagePipeline
import Workloads

@Suite("Sampled miss-ratio curves")
struct SamplingTests {
    static let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
    static let traces = ["articleproject.jsonl.gz", "headlines.jsonl.gz", "mymarket.jsonl.gz", "picterest.jsonl.gz", "vanilladin.jsonl.gz"]

    @Test("a spatial sample keeps every request of its keys, the same keys on every run, and fewer keys at a lower rate")
    func sampleKeepsWholeKeys() {
        let full = SimulationTrace.zipf(objects: 5_000, alpha: 0.9, requests: 100_000, seed: 4)
        let whole = SpatialSample(full, rate: 1)
        #expect(whole.trace.count == full.count && whole.trace.keyCount == full.keyCount)
        let half = SpatialSample(full, rate: 0.5), tenth = SpatialSample(full, rate: 0.1)
        let keptHalf = Set(half.trace.fingerprints), keptTenth = Set(tenth.trace.fingerprints)
        #expect(keptTenth.isSubset(of: keptHalf))
        #expect(abs(Double(keptTenth.count) / 5_000 - 0.1) < 0.02)
        #expect(SpatialSample(full, rate: 0.1).trace.fingerprints == tenth.trace.fingerprints)
        // Every request of a kept key, none of the others.
        let requestsOfKept = full.keys.filter { keptTenth.contains(full.fingerprints[Int($0)]) }.count
        #expect(tenth.trace.count == requestsOfKept)
    }

    @Test("SHARDS on the whole trace (rate 1) gives the simulator's LRU on every dataset, every size")
    func shardsAtRateOneIsExact() throws {
        for name in Self.traces {
            let workload = try RecordedWorkload.load(path: Self.datasets.appendingPathComponent(name).path)
            let trace = workload.simulationTrace(strategy: CacheKeyStrategy(.normalized, includesProcessing: true))
            let capacities = [0.01, 0.05, 0.2, 1.0].map { Int(Double(trace.memoryFootprint) * $0) }
            let curve = SampledLRU.curve(SpatialSample(trace, rate: 1), capacities: capacities, maxEntryFraction: 0.1)
            for (capacity, point) in zip(capacities, curve) {
                let exact = CacheSimulator.run(
                    trace, SimulationConfiguration(limits: CacheLimits(costLimit: capacity, maxEntryFraction: 0.1), policy: .lru, warnings: .none))
                #expect(point.hitRatio == exact.hitRatio, "\(name) at \(capacity)")
                #expect(point.byteHitRatio == exact.byteHitRatio, "\(name) at \(capacity)")
            }
        }
    }

    @Test("on a Zipf trace sampled at 10%, SHARDS and scaled-down simulation come within 0.015 of exact on average, closer than the raw sample")
    func sampledOnZipf() {
        let trace = SimulationTrace.zipf(objects: 100_000, alpha: 0.8, requests: 1_000_000, seed: 9)
        let sample = SpatialSample(trace, rate: 0.1)
        let capacities = [1_000, 5_000, 10_000, 30_000, 60_000]
        let curve = SampledLRU.curve(sample, capacities: capacities, maxEntryFraction: 1)
        var adjusted: [String: [Double]] = [:], raw: [String: [Double]] = [:]
        for (capacity, point) in zip(capacities, curve) {
            for policy in [EvictionPolicyKind.lru, .s3fifo(moveToMainThreshold: 1)] {
                let exact = CacheSimulator.run(trace, SimulationConfiguration(limits: CacheLimits(costLimit: capacity, maxEntryFraction: 1), policy: policy))
                let sampledHits = policy == .lru
                    ? (point.hitRatio * 0.1 * Double(trace.count)) - 0.1 * Double(trace.count) + Double(sample.trace.count)
                    : CacheSimulator.run(
                        sample.trace, SimulationConfiguration(limits: CacheLimits(costLimit: capacity / 10, maxEntryFraction: 1), policy: policy)).hits
                adjusted[policy.description, default: []].append(abs(sample.adjustedHitRatio(hits: sampledHits) - exact.hitRatio))
                raw[policy.description, default: []].append(abs(sampledHits / Double(sample.trace.count) - exact.hitRatio))
            }
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        for (policy, errors) in adjusted {
            #expect(mean(errors) <= 0.015, "\(policy): \(errors)")
            #expect(mean(errors) < mean(raw[policy]!), "\(policy): adjusted \(errors), raw \(raw[policy]!)")
        }
    }
}

@Suite("Plain trace statistics")
struct PlainTraceStatisticsTests {
    @Test("hand-worked: A B A C B A")
    func handWorked() {
        var trace = SimulationTrace()
        let a = trace.addKey(fingerprint: 1), b = trace.addKey(fingerprint: 2), c = trace.addKey(fingerprint: 3)
        for (index, (key, size)) in [(a, 100), (b, 10), (a, 120), (c, 5), (b, 10), (a, 100)].enumerated() {
            trace.append(key: key, cost: size, size: size, time: UInt64(index) * 2_000_000_000)
        }
        let statistics = trace.plainStatistics
        #expect(statistics.requests == 6 && statistics.keys == 3)
        #expect(statistics.requestedBytes == 345 && statistics.uniqueBytes == 135)
        #expect(statistics.reuseRatio == 0.5)
        #expect(statistics.oneHitWonderRatio == 1.0 / 3)
        // Distinct keys between reuses: A after {B}, B after {A, C}, A after {C, B}.
        #expect(statistics.reuseDistanceP50 == 2 && statistics.reuseDistanceP90 == 2 && statistics.reuseDistanceP99 == 2)
        #expect(statistics.medianSize == 100 && statistics.largestSize == 120)
        #expect(statistics.topOnePercentShare == 0.5)
        #expect(statistics.durationSeconds == 10)
    }
}
