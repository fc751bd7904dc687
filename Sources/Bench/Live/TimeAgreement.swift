import CacheSimulation

/// Time to image, live through a shaped network against the simulator's clock on the same
/// network, request by request: percentiles per tier side by side, the mean absolute
/// percentage error and Spearman's ρ over per-request times.
public struct TimeAgreement: Codable, Sendable, Equatable {
    /// The network (`NetworkProfile.description`) and how live was put on it (`LinkShaping.method`).
    public var network: String
    public var method: String
    /// "overall", then each tier either side answered from.
    public var rows: [Row]
    /// Requests timed on both sides.
    public var compared: Int
    /// Over the compared requests that live waited a millisecond or more for (a memory hit
    /// takes microseconds live and none simulated, which no ratio compares): mean of
    /// |simulated − live| / live, a fraction.
    public var mape: Double
    public var mapeRequests: Int
    /// Spearman's ρ over every compared request.
    public var spearman: Double
    /// The most ρ any model reaches that answers a memory hit in no time, as the clock does:
    /// live's times against themselves with live's memory hits at zero. Where most requests are
    /// memory hits, their ties bound ρ well below 1 however right the other times are.
    public var spearmanCeiling: Double

    public struct Row: Codable, Sendable, Equatable {
        public var tier: String
        public var live: TimeToImage.Percentiles
        public var simulated: TimeToImage.Percentiles
    }

    /// `live` and `simulated`: per request, microseconds or `TimeToImage.untimed`, with where each side answered it.
    init(
        network: String, method: String, live: [UInt32], liveAnswers: [CacheSimulator.Answer], simulated: [UInt32],
        simulatedAnswers: [CacheSimulator.Answer]
    ) {
        self.network = network
        self.method = method
        func tiered(_ times: [UInt32], _ answers: [CacheSimulator.Answer]) -> [String: [UInt32]] {
            var byTier: [String: [UInt32]] = ["overall": []]
            for (time, answer) in zip(times, answers) where time != TimeToImage.untimed {
                byTier["overall"]!.append(time)
                byTier["\(answer)", default: []].append(time)
            }
            return byTier
        }
        let (liveTiers, simulatedTiers) = (tiered(live, liveAnswers), tiered(simulated, simulatedAnswers))
        let order = ["overall"] + CacheSimulator.Answer.allCases.map { "\($0)" }
        rows = order.filter { liveTiers[$0] != nil || simulatedTiers[$0] != nil }.map { tier in
            Row(tier: tier, live: .init(sorted: (liveTiers[tier] ?? []).sorted()),
                simulated: .init(sorted: (simulatedTiers[tier] ?? []).sorted()))
        }
        var pairs: [(live: Double, simulated: Double)] = []
        var liveWithoutHits: [Double] = []
        for ((a, b), answer) in zip(zip(live, simulated), liveAnswers) where a != TimeToImage.untimed && b != TimeToImage.untimed {
            pairs.append((Double(a), Double(b)))
            liveWithoutHits.append(answer == .memory ? 0 : Double(a))
        }
        compared = pairs.count
        let waited = pairs.filter { $0.live >= 1_000 }
        mapeRequests = waited.count
        mape = waited.isEmpty ? .nan : waited.reduce(0) { $0 + abs($1.simulated - $1.live) / $1.live } / Double(waited.count)
        spearman = pairs.count < 2 ? .nan : Statistics.spearman(pairs.map(\.live), pairs.map(\.simulated))
        spearmanCeiling = pairs.count < 2 ? .nan : Statistics.spearman(pairs.map(\.live), liveWithoutHits)
    }
}
