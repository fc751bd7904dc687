import ImagePipeline
import Foundation

/// Every key of a trace with its request count, cost and whether the sample kept it:
/// what the hit model needs. Keys are held sorted by request count, so keys of one
/// count form one group and the model is solved over groups, not keys.
struct KeyPopulation: Sendable {
    private let counts: [Int]
    /// Requests that could hit: all but the first of each launch the key is requested in.
    private let reuses: [Int]
    private let costs: [Int]
    private let kept: [Bool]
    private let requests: Int

    init(_ trace: SimulationTrace, kept keptByKey: [Bool]) {
        var countByKey = [Int](repeating: 0, count: trace.keyCount)
        var costByKey = [Int](repeating: 0, count: trace.keyCount)
        // Launches each key is requested in: a relaunch empties memory, so each costs a miss.
        var launchesByKey = [Int](repeating: 0, count: trace.keyCount), lastLaunchByKey = [Int](repeating: -1, count: trace.keyCount)
        var launch = 0, nextEvent = 0
        for index in 0..<trace.count {
            while nextEvent < trace.events.count, trace.events[nextEvent].beforeRequest <= index {
                switch trace.events[nextEvent].kind {
                case .relaunch, .newDevice: launch += 1
                case .invalidate, .memoryWarning: break
                }
                nextEvent += 1
            }
            let key = Int(trace.keys[index])
            countByKey[key] += 1
            costByKey[key] = trace.costs[index]
            if lastLaunchByKey[key] != launch { lastLaunchByKey[key] = launch; launchesByKey[key] += 1 }
        }
        let order = (0..<trace.keyCount).filter { countByKey[$0] > 0 }.sorted { countByKey[$0] < countByKey[$1] }
        counts = order.map { countByKey[$0] }
        reuses = order.map { countByKey[$0] - launchesByKey[$0] }
        costs = order.map { costByKey[$0] }
        kept = order.map { keptByKey[$0] }
        requests = trace.count
    }

    /// Σ over keys of (rate − kept) × the key's expected hits in a cache of `limits`
    /// over the whole trace: the hits a draw at `rate` is expected to hold minus those
    /// it holds, by the model. Zero when every key is kept at rate 1.
    func drawCorrection(limits: CacheLimits, rate: Double) -> Double {
        // Groups of equal request count among the keys the cache admits.
        var groupCounts: [Double] = [], groupCosts: [Double] = [], groupDraws: [Double] = []
        var index = 0
        while index < counts.count {
            let count = counts[index]
            var cost = 0.0, draw = 0.0
            while index < counts.count, counts[index] == count {
                if limits.admits(cost: costs[index]) {
                    cost += Double(costs[index])
                    draw += (rate - (kept[index] ? 1 : 0)) * Double(reuses[index])
                }
                index += 1
            }
            if cost > 0 || draw != 0 {
                groupCounts.append(Double(count))
                groupCosts.append(cost)
                groupDraws.append(draw)
            }
        }
        let time = characteristicTime(counts: groupCounts, costs: groupCosts, capacity: Double(limits.costLimit))
        var correction = 0.0
        for group in groupCounts.indices {
            let residence = time.isInfinite ? 1 : -expm1(-groupCounts[group] * time / Double(requests))
            correction += residence * groupDraws[group]
        }
        return correction
    }

    /// Che's characteristic time, in requests: the T at which the keys' expected
    /// occupancy, Σ cost × (1 − e^(−count × T / requests)), fills `capacity`;
    /// infinite when everything fits.
    private func characteristicTime(counts: [Double], costs: [Double], capacity: Double) -> Double {
        func occupancy(_ time: Double) -> Double {
            var total = 0.0
            for group in counts.indices { total += costs[group] * -expm1(-counts[group] * time / Double(requests)) }
            return total
        }
        guard costs.reduce(0, +) > capacity else { return .infinity }
        guard capacity > 0 else { return 0 }
        var low = 0.0, high = Double(max(requests, 1))
        while occupancy(high) < capacity { low = high; high *= 2 }
        for _ in 0..<100 where high - low > high * 1e-12 {
            let middle = (low + high) / 2
            if occupancy(middle) < capacity { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }
}
