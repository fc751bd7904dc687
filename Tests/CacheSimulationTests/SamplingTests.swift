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

    /// The same requests under other key fingerprints: another draw of the same keys' hashes.
    static func redrawn(_ trace: SimulationTrace, draw: UInt64) -> SimulationTrace {
        var copy = SimulationTrace()
        for key in 0..<trace.keyCount { _ = copy.addKey(fingerprint: trace.fingerprints[key] ^ (draw &* 0x9E37_79B9_7F4A_7C15)) }
        copy.reserveCapacity(trace.count)
        for index in 0..<trace.count {
            copy.append(key: trace.keys[index], cost: trace.costs[index], size: trace.sizes[index], time: trace.times[index])
        }
        return copy
    }

    @Test("hand-worked: the hit model's correction counts a key's reuses, one miss per launch it is requested in")
    func hitModelCountsLaunches() {
        var trace = SimulationTrace()
        let a = trace.addKey(fingerprint: 1), b = trace.addKey(fingerprint: 2)
        for key in [a, a, b] { trace.append(key: key, cost: 1, size: 1, time: 0) }
        trace.appendReset(newDevice: false)
        for key in [a, a, a] { trace.append(key: key, cost: 1, size: 1, time: 0) }
        let roomy = CacheLimits(costLimit: 10, maxEntryFraction: 1)
        // A: 5 requests in 2 launches, 3 reuses; B: none. Everything fits, so the model's hits are the reuses.
        #expect(KeyPopulation(trace, kept: [false, false]).drawCorrection(limits: roomy, rate: 0.5) == 0.5 * 3)
        #expect(KeyPopulation(trace, kept: [true, false]).drawCorrection(limits: roomy, rate: 0.5) == -0.5 * 3)
        #expect(KeyPopulation(trace, kept: [true, true]).drawCorrection(limits: roomy, rate: 1) == 0)
        // A cache that admits nothing expects no hits: nothing to correct.
        #expect(KeyPopulation(trace, kept: [true, false]).drawCorrection(limits: CacheLimits(costLimit: 0, maxEntryFraction: 1), rate: 0.5) == 0)
    }

    @Test("the hit-model adjustment is exact at rate 1 and, over eight draws of a Zipf trace at 5%, errs less than SHARDS-adj for LRU and SIEVE")
    func hitModelAdjustment() {
        let trace = SimulationTrace.zipf(objects: 100_000, alpha: 0.8, requests: 1_000_000, seed: 21)
        let capacities = [1_000, 3_000, 10_000, 30_000]
        let limits = capacities.map { CacheLimits(costLimit: $0, maxEntryFraction: 1) }
        let whole = SpatialSample(trace, rate: 1)
        for limit in limits { #expect(whole.adjustedHitRatio(hits: 123, limits: limit, adjustment: .hitModel) == 123 / Double(trace.count)) }
        let policies: [EvictionPolicyKind] = [.lru, .sieve]
        let exact = policies.map { policy in
            limits.map { CacheSimulator.run(trace, SimulationConfiguration(limits: $0, policy: policy)).hitRatio }
        }
        var errors: [SampleAdjustment: [[Double]]] = [.shards: [[], []], .hitModel: [[], []]]
        for draw in 1...8 {
            let sample = SpatialSample(Self.redrawn(trace, draw: UInt64(draw)), rate: 0.05)
            for adjustment in SampleAdjustment.allCases {
                let lru = SampledLRU.curve(sample, capacities: capacities, maxEntryFraction: 1, adjustment: adjustment)
                for (size, point) in lru.enumerated() { errors[adjustment]![0].append(abs(point.hitRatio - exact[0][size])) }
            }
            for (size, limit) in limits.enumerated() {
                let scaled = CacheLimits(costLimit: limit.costLimit / 20, maxEntryFraction: 1)
                let hits = CacheSimulator.run(sample.trace, SimulationConfiguration(limits: scaled, policy: .sieve)).hits
                for adjustment in SampleAdjustment.allCases {
                    let estimate = sample.adjustedHitRatio(hits: hits, limits: limit, adjustment: adjustment)
                    errors[adjustment]![1].append(abs(estimate - exact[1][size]))
                }
            }
        }
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        for (index, policy) in policies.enumerated() {
            let model = errors[.hitModel]![index], shards = errors[.shards]![index]
            #expect(mean(model) < mean(shards), "\(policy): hit-model \(model), shards \(shards)")
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
