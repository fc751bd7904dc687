import CacheSimulation

/// One trace's own network (`simulate --network recorded`): the profile fitted to the fetch times
/// it kept, its error on them, and the presets' error on the same fetches for scale.
public struct RecordedNetworkRow: Codable, Sendable, Equatable {
    public var trace: String
    public var profile: NetworkProfile
    public var agreement: RecordedNetwork.Agreement
    /// The error of the presets the suite times on, by name, on the same fetches.
    public var presets: [String: RecordedNetwork.Agreement]

    /// The presets set beside a fitted profile: the suite's mobile default, LTE and Wi-Fi.
    static let comparedPresets = ["slow-4g", "lte", "wifi"]

    /// Each input's fit, in order; a trace that kept too few fetch times, or a plain one, is refused.
    static func fit(_ inputs: [SimulationMatrix.Input]) throws -> [RecordedNetworkRow] {
        try inputs.map { input in
            guard case .recorded(let workload) = input else {
                throw UsageError("--network recorded fits a recorded trace's fetch times; \(input.name), a plain trace, has none")
            }
            guard let fitted = RecordedNetwork.fit(workload) else {
                throw UsageError("""
                    --network recorded: \(input.name) kept \(workload.recordedFetches.count) fetch times, \(RecordedNetwork.usableFetches(workload)) of \
                    them \(RecordedNetwork.shortestMilliseconds) ms or more; a fit needs at least \(RecordedNetwork.fewestFetches) (import har keeps a HAR's; \
                    shorter ones came from a cache); give a profile instead
                    """)
            }
            var presets: [String: RecordedNetwork.Agreement] = [:]
            for name in comparedPresets {
                if let profile = NetworkProfile.presets.first(where: { $0.name == name }) {
                    presets[name] = RecordedNetwork.agreement(workload, on: profile)
                }
            }
            return RecordedNetworkRow(trace: input.name, profile: fitted.profile, agreement: fitted.agreement, presets: presets)
        }
    }
}
