import Foundation
import ImagePipeline
import CacheSimulation

/// Settings for an app's image caches, derived from its workloads: each
/// choice with the figures that justify it and the alternatives it beat.
public struct Recommendation: Codable, Sendable {
    public var traces: [String]
    public var requests: Int
    public var memoryBudgetBytes: Int
    public var diskBudgetBytes: Int?
    /// The phone the settings were measured on; nil for none.
    public var device: DeviceModel?
    /// What each choice optimised, and the network every run kept a clock on (nil: none).
    public var goal: RecommendationGoal
    public var network: String?
    /// Memory sizes of the curve past which the device ended the app: never recommended.
    public var endedSizes: [Int]?
    /// The knee of the memory curve: the smallest size within `kneeGain` of the best hit ratio
    /// the curve reaches up to the budget.
    public var memoryBytes: Int
    /// Memory hit ratio by size (the recommended key strategy, LRU, no disk, no warnings).
    public var memoryCurve: [CurvePoint]
    public var keyStrategy: String
    public var keyStrategies: [Candidate]
    public var policy: String
    public var policies: [Candidate]
    public var maxEntryFraction: Double
    public var entryCaps: [Candidate]
    public var warningReaction: String
    public var warningReactions: [Candidate]
    /// The knee of the disk curve within the disk budget; nil without a budget.
    public var diskBytes: Int?
    /// Hit ratio in either tier by disk size, memory at `memoryBytes`.
    public var diskCurve: [CurvePoint]
    /// Time between two requests of one key by one user: the 99th percentile and the longest, in seconds.
    public var reuseIntervalP99Seconds: Double
    public var longestReuseIntervalSeconds: Double
    /// The settings together as one pipeline (`pipeline(named:)`), with the traces' warnings, on
    /// the device and network: what `simulate --pipeline` gives for the file `recommend` writes.
    public var whole: Candidate?
    /// The pipeline the app has now (`recommend --pipeline FILE`), measured as `whole` is; nil without one.
    public var current: Candidate?
    /// What each setting is and why, in words, for people.
    public var reasons: [Reason]
    /// The settings as code for this library, Nuke, Kingfisher and SDWebImage.
    public var snippets: [SettingsSnippet]

    public struct CurvePoint: Codable, Sendable, Equatable {
        public var bytes: Int
        public var hitRatio: Double
        public var p95Milliseconds: Double?
        public var bytesDownloaded: Int
    }

    public struct Candidate: Codable, Sendable, Equatable {
        public var name: String
        public var hitRatio: Double
        public var p95Milliseconds: Double?
        public var bytesDownloaded: Int
        public var wrongImages: Int
        /// Entries dropped by warnings and downloaded again (warning reactions only).
        public var refetches: Int
        /// Times the device model ended the app; nil without one.
        public var processEnds: Int?
    }

    public struct Reason: Codable, Sendable, Equatable {
        public var setting: String
        public var value: String
        public var because: String
    }

    /// How far below the best hit ratio up to the budget the knee may lie: half a point.
    public static let kneeGain = 0.005
    /// The smallest size a curve starts at.
    public static let smallestSize = 256 << 10
}

/// Why no setting can be recommended for these traces.
public struct RecommendationError: Error, CustomStringConvertible, Equatable {
    public let reason: String
    public var description: String { reason }
}

public enum SettingsRecommender {
    static let entryCaps: [Double] = [0.02, 0.05, 0.1, 0.25, 0.5, 1]
    static let reactions = [
        WarningReaction(.purgeAll), WarningReaction(.trimToFraction(0.5)), WarningReaction(.trimToFraction(0.25)),
        WarningReaction(.trimIdle(seconds: 30)),
    ]

    /// Requests that ask again for a URL their device asked for before: below this, a curve
    /// has too few hits to place a knee.
    public static let minimumRepeatRequests = 20

    /// `goal` `.p95` needs a `network`; with one, every run keeps a clock (`SimulationConfiguration.network`),
    /// its requests arriving as `arrivals` says and its decodes and reads costing `costs`.
    /// `current`: the app's pipeline now, measured beside the recommendation as it is.
    public static func recommend(
        _ workloads: [RecordedWorkload], memoryBudget: Int, diskBudget: Int?, device: DeviceModel? = nil,
        goal: RecommendationGoal = .hits, network: NetworkProfile? = nil, costs: DeviceCosts = .thisMachine,
        arrivals: SimulationConfiguration.Arrivals = .recorded, current: AppPreset? = nil, progress: ProgressLine = ProgressLine()
    ) throws(RecommendationError) -> Recommendation {
        guard goal != .p95 || network != nil else {
            throw RecommendationError(reason: "a p95 time to image needs a network to time it on (--network)")
        }
        let requests = workloads.reduce(0) { $0 + $1.requests.count }
        let repeats = repeatRequests(workloads)
        guard repeats >= minimumRepeatRequests else {
            throw RecommendationError(reason: "\(requests) request\(requests == 1 ? "" : "s"), of which \(repeats) ask again for a URL the same device asked for before: "
                + "too little reuse to place any cache size (at least \(minimumRepeatRequests) are needed); record a longer session")
        }
        let defaultCap = CacheLimits(costLimit: memoryBudget).maxEntryFraction
        // 1. Keys: those that never show another URL's picture, the best of them at the budget.
        let keyRuns = KeyComparison.run(workloads, strategies: CacheKeyStrategy.allStrategies, configuration: {
            var matrix = SimulationMatrix()
            matrix.memorySizes = [.bytes(memoryBudget)]
            matrix.diskSizes = [nil]
            matrix.warnings = .none
            return matrix
        }(), progress: progress)
        let keyCandidates = CacheKeyStrategy.allStrategies.map { strategy in
            let rows = keyRuns.filter { $0.keyStrategy == strategy.description }
            let requests = rows.reduce(0) { $0 + $1.requests }
            let hits = rows.reduce(0.0) { $0 + $1.hitRatio * Double($1.requests) }
            return Recommendation.Candidate(
                name: strategy.description, hitRatio: requests == 0 ? 0 : hits / Double(requests), bytesDownloaded: 0,
                wrongImages: rows.reduce(0) { $0 + $1.wrongImages }, refetches: 0)
        }
        // Only keys naming the whole URL and the box: a key from part of the URL collides as soon as two
        // URLs differ in host or folder (ArticleProject's file names), and one without the box shows one
        // display size for another; a trace without such URLs cannot show that.
        let safe = Set(CacheKeyStrategy.allStrategies.filter { $0.includesProcessing && [.absoluteString, .normalized].contains($0.base) }.map(\.description))
        // Keys by hits whatever the goal: a key changes what is shared, not how long it takes.
        let key = best(keyCandidates.filter { $0.wrongImages == 0 && safe.contains($0.name) }, preferring: ReplayDefaults.keyStrategy.description, goal: .hits)
            ?? Recommendation.Candidate(name: ReplayDefaults.keyStrategy.description, hitRatio: 0, bytesDownloaded: 0, wrongImages: 0, refetches: 0)
        let strategy = CacheKeyStrategy(name: key.name) ?? ReplayDefaults.keyStrategy
        let traces = workloads.map { $0.simulationTrace(strategy: strategy) }

        func measure(_ configurations: [(name: String, configuration: SimulationConfiguration)], label: String) -> [Recommendation.Candidate] {
            let jobs = configurations.indices.flatMap { c in traces.indices.map { (c, $0) } }
            let results = ParallelMap.run(jobs, progress: progress, label: label) { job in
                CacheSimulator.run(traces[job.1], configurations[job.0].configuration)
            }
            return configurations.indices.map { c in
                candidate(configurations[c].name, results[(c * traces.count)..<((c + 1) * traces.count)], configurations[c].configuration)
            }
        }
        // Every run on the app's phone and, with a network, on its clock.
        func placed(_ configuration: SimulationConfiguration) -> SimulationConfiguration {
            var configuration = configuration
            (configuration.device, configuration.network) = (device, network)
            (configuration.deviceCosts, configuration.arrivals) = (costs, arrivals)
            return configuration
        }
        func memoryOnly(_ bytes: Int, _ policy: EvictionPolicyKind = .lru, cap: Double = defaultCap) -> SimulationConfiguration {
            // On a phone, a size is measured as if its warnings came too late to help: one the phone
            // ends without them is one it ends when they do.
            placed(SimulationConfiguration(
                limits: CacheLimits(costLimit: bytes, maxEntryFraction: cap), policy: policy,
                pressure: device == nil ? .purgeAll : MemoryPressurePolicy(warning: .ignore, critical: .ignore), warnings: .none))
        }

        // 2. Memory: the knee of the curve up to the budget, on doublings that stop once everything fits,
        // among the sizes at which the device never ends the app.
        let memorySizes = sizes(upTo: memoryBudget, footprint: traces.map(\.memoryFootprint).max() ?? 0)
        let measured = zip(memorySizes, measure(memorySizes.map { ("\($0)", memoryOnly($0)) }, label: "memory curve"))
        let endedSizes = measured.filter { ($0.1.processEnds ?? 0) > 0 }.map(\.0)
        let memoryCurve = measured.filter { ($0.1.processEnds ?? 0) == 0 }.map { Recommendation.CurvePoint($0, $1) }
        guard !memoryCurve.isEmpty else {
            throw RecommendationError(reason: "\(device?.name ?? "the device") ends the app at every memory size from \(ByteSize.format(memorySizes[0])): "
                + "its decoded images alone pass the limit; give a device with more memory, or make the images smaller")
        }
        let memory = knee(memoryCurve, goal: goal)

        // 3. Policy, 4. per-entry cap and 5. warning reaction, each at the knee with the choices before it.
        let kinds = EvictionPolicyKind.allCases
        let policies = measure(kinds.map { ($0.description, memoryOnly(memory, $0)) }, label: "policies")
        let policy = best(policies, preferring: EvictionPolicyKind.lru.description, goal: goal)!
        let kind = kinds.first { $0.description == policy.name } ?? .lru
        let caps = measure(entryCaps.map { (String($0), memoryOnly(memory, kind, cap: $0)) }, label: "entry caps")
        let cap = best(caps, preferring: String(defaultCap), goal: goal)!
        let capFraction = Double(cap.name) ?? defaultCap
        let warned = measure(reactions.map { reaction in
            var configuration = memoryOnly(memory, kind, cap: capFraction)
            configuration.warnings = .trace
            configuration.pressure = reaction.policy
            return (reaction.description, configuration)
        }, label: "warnings")
        let reaction = best(warned, preferring: WarningReaction(.trimToFraction(0.5)).description, goal: goal)!

        // 6. Disk: the knee of either tier's curve up to the disk budget.
        var diskCurve: [Recommendation.CurvePoint] = []
        var disk: Int?
        if let diskBudget {
            let diskSizes = sizes(upTo: diskBudget, footprint: traces.map(\.diskFootprint).max() ?? 0)
            diskCurve = zip(diskSizes, measure(diskSizes.map { size in
                var configuration = memoryOnly(memory, kind, cap: capFraction)
                configuration.disk = .init(byteLimit: size, policy: ReplayDefaults.diskPolicy)
                return ("\(size)", configuration)
            }, label: "disk curve")).map { Recommendation.CurvePoint($0, $1) }
            disk = knee(diskCurve, goal: goal)
        }

        let reuse = reuseIntervals(workloads)
        var recommendation = Recommendation(
            traces: workloads.map(\.name), requests: workloads.reduce(0) { $0 + $1.requests.count },
            memoryBudgetBytes: memoryBudget, diskBudgetBytes: diskBudget, device: device, goal: goal, network: network?.name,
            endedSizes: device == nil ? nil : endedSizes, memoryBytes: memory, memoryCurve: memoryCurve,
            keyStrategy: key.name, keyStrategies: keyCandidates, policy: policy.name, policies: policies,
            maxEntryFraction: capFraction, entryCaps: caps, warningReaction: reaction.name, warningReactions: warned,
            diskBytes: disk, diskCurve: diskCurve, reuseIntervalP99Seconds: reuse.p99, longestReuseIntervalSeconds: reuse.longest,
            whole: nil, reasons: [], snippets: [])
        // 7. The choices together: each was measured beside the ones before it, the disk without warnings.
        let whole = placed(recommendation.pipeline(named: "recommended").configuration)
        recommendation.whole = measure([("recommended", whole)], label: "the whole pipeline")[0]
        if let current {
            // Keyed and decoded as the app's pipeline does, not as the recommendation's.
            let configuration = placed(current.configuration(on: device))
            let runs = ParallelMap.run(workloads, progress: progress, label: "your pipeline") { CacheSimulator.run(current.trace(of: $0), configuration) }
            recommendation.current = candidate(current.name, runs[...], configuration)
        }
        recommendation.reasons = reasons(recommendation)
        recommendation.snippets = recommendation.makeSnippets()
        return recommendation
    }

    /// One configuration's runs on every trace as one candidate: hits from either tier when it has a disk.
    static func candidate(_ name: String, _ runs: ArraySlice<SimulationResult>, _ configuration: SimulationConfiguration) -> Recommendation.Candidate {
        let requests = runs.reduce(0) { $0 + $1.requests }
        let hits = runs.reduce(0.0) { $0 + (configuration.disk == nil ? $1.hits : $1.hits + Double($1.diskHits)) }
        return Recommendation.Candidate(
            name: name, hitRatio: requests == 0 ? 0 : hits / Double(requests),
            p95Milliseconds: configuration.network == nil ? nil : runs.compactMap { $0.timeToImage?.overall.p95 }.max(),
            bytesDownloaded: runs.reduce(0) { $0 + $1.bytesDownloaded },
            wrongImages: runs.reduce(0) { $0 + $1.wrongImages }, refetches: runs.reduce(0) { $0 + $1.warnings.refetches },
            processEnds: configuration.device == nil ? nil : runs.reduce(0) { $0 + ($1.device?.processEnds ?? 0) })
    }

    /// Doublings from `Recommendation.smallestSize`, up to the first that holds the whole
    /// `footprint` (past it nothing changes) or the budget, whichever comes first; the budget
    /// itself when it comes first. The same sizes for every budget past the footprint, so
    /// the knee does not follow the budget.
    static func sizes(upTo budget: Int, footprint: Int) -> [Int] {
        var sizes: [Int] = []
        var size = min(Recommendation.smallestSize, budget)
        while size < budget {
            sizes.append(size)
            if size >= footprint { return sizes }
            size *= 2
        }
        sizes.append(budget)
        return sizes
    }

    /// The knee of the curve's upper envelope: the smallest size within `kneeGain` of the best
    /// hit ratio at any size the curve reaches. A curve need not rise with the size (under a
    /// per-entry cap a larger memory lets larger entries in, which evict more), so a flat or
    /// falling doubling is no sign that nothing better lies beyond it.
    static func knee(_ curve: [Recommendation.CurvePoint], goal: RecommendationGoal = .hits) -> Int {
        guard let best = curve.map(goal.score).max() else { return 0 }
        return curve.first { goal.isNear(goal.score($0), best, knee: true) }!.bytes
    }

    /// Where the curve falls from one size to the next: the larger size and the points lost.
    static func dips(_ curve: [Recommendation.CurvePoint]) -> [(bytes: Int, points: Double)] {
        zip(curve, curve.dropFirst()).compactMap { point, next in
            next.hitRatio < point.hitRatio ? (next.bytes, (point.hitRatio - next.hitRatio) * 100) : nil
        }
    }

    /// Requests for a URL their session asked for before.
    static func repeatRequests(_ workloads: [RecordedWorkload]) -> Int {
        var repeats = 0
        for workload in workloads {
            var seen = Set<Int64>()
            for request in workload.requests where !seen.insert(Int64(request.session) << 32 | Int64(request.url)).inserted { repeats += 1 }
        }
        return repeats
    }

    /// The candidate that scores best for `goal`; `preferred` when it is near it (0.1 point of hits, 1 % of a time or bytes).
    static func best(_ candidates: [Recommendation.Candidate], preferring preferred: String, goal: RecommendationGoal) -> Recommendation.Candidate? {
        guard let top = candidates.max(by: { goal.score($0) < goal.score($1) }) else { return nil }
        if let favourite = candidates.first(where: { $0.name == preferred }), goal.isNear(goal.score(favourite), goal.score(top), knee: false) {
            return favourite
        }
        return top
    }

    /// Seconds between one user's consecutive requests for one URL.
    static func reuseIntervals(_ workloads: [RecordedWorkload]) -> (p99: Double, longest: Double) {
        var intervals: [UInt64] = []
        for workload in workloads {
            var last: [Int64: UInt64] = [:]
            for request in workload.requests {
                let key = Int64(request.session) << 32 | Int64(request.url)
                if let previous = last[key], request.time >= previous { intervals.append(request.time - previous) }
                last[key] = request.time
            }
        }
        guard !intervals.isEmpty else { return (0, 0) }
        intervals.sort()
        let p99 = intervals[min(intervals.count - 1, Int((Double(intervals.count) * 0.99).rounded(.up)) - 1)]
        return (Double(p99) / 1e9, Double(intervals.last!) / 1e9)
    }

    static func reasons(_ r: Recommendation) -> [Recommendation.Reason] {
        func percent(_ value: Double) -> String { String(format: "%.2f%%", value * 100) }
        let goal = r.goal
        /// The goal's figure, with the hit ratio beside a time or bytes.
        func figures(_ measured: some RecommendationMeasured) -> String {
            goal == .hits ? percent(measured.hitRatio) : goal.describe(measured) + ", " + percent(measured.hitRatio) + " hit"
        }
        func doubling(_ curve: [Recommendation.CurvePoint], at bytes: Int, budget: Int) -> String {
            guard let index = curve.firstIndex(where: { $0.bytes == bytes }) else { return "" }
            guard index + 1 < curve.count else {
                if let ended = r.endedSizes?.first(where: { $0 > bytes }) {
                    return "; at \(ByteSize.format(ended)) \(r.device?.name ?? "the phone") ends the app"
                }
                return bytes >= budget ? "; the curve still climbs at the budget of \(ByteSize.format(budget)), which caps it" : "; everything fits at this size"
            }
            let best = curve.max { goal.score($0) < goal.score($1) }!
            return "; the best up to the budget is \(figures(best)) at \(ByteSize.format(best.bytes))"
                + " (the knee: the smallest size within " + (goal == .hits ? "\(String(format: "%.1f", Recommendation.kneeGain * 100)) point" : "5 %") + " of the best)"
                + Self.dips(curve).prefix(2).map { "; the curve falls \(String(format: "%.2f", $0.points)) point at \(ByteSize.format($0.bytes)): a larger memory lets larger entries in under the \(Int((r.maxEntryFraction * 100).rounded()))% per-entry cap, and they evict more" }.joined()
        }
        let lru = r.policies.first { $0.name == EvictionPolicyKind.lru.description }
        let chosen = r.policies.first { $0.name == r.policy }
        let colliding = r.keyStrategies.filter { $0.wrongImages > 0 }.map { "\($0.name) \($0.wrongImages)" }
        let purge = r.warningReactions.first { $0.name == WarningReaction(.purgeAll).description }
        let reaction = r.warningReactions.first { $0.name == r.warningReaction }
        let kneePoint = r.memoryCurve.first { $0.bytes == r.memoryBytes }
        var reasons = [
            Recommendation.Reason(
                setting: "goal", value: goal.rawValue + (r.network.map { " on " + $0 } ?? ""),
                because: goal == .hits ? "each choice answers the most requests from a cache" + (r.network.map { " (timed on \($0))" } ?? "")
                    : "each choice gives the lowest " + (goal == .p95 ? "95th percentile of time to image" : "bytes downloaded") + "; keys are chosen by hits"),
            Recommendation.Reason(
                setting: "memory", value: ByteSize.format(r.memoryBytes),
                because: (goal == .hits ? "\(percent(kneePoint?.hitRatio ?? 0)) of requests hit" : kneePoint.map(figures) ?? "") + " at this size"
                    + doubling(r.memoryCurve, at: r.memoryBytes, budget: r.memoryBudgetBytes)),
            Recommendation.Reason(
                setting: "keys", value: r.keyStrategy,
                because: "the best hit ratio (\(percent(r.keyStrategies.first { $0.name == r.keyStrategy }?.hitRatio ?? 0))) among keys of the whole URL and the box that never showed another URL's picture"
                    + (colliding.isEmpty ? "" : "; wrong images with " + colliding.joined(separator: ", "))),
            Recommendation.Reason(
                setting: "policy", value: r.policy,
                because: "\(chosen.map(figures) ?? "") at \(ByteSize.format(r.memoryBytes))"
                    + (r.policy == EvictionPolicyKind.lru.description ? ", no policy " + (goal == .hits ? "more than 0.1 point" : "more than 1 %") + " better"
                       : ", LRU \(lru.map(figures) ?? "")")),
            Recommendation.Reason(
                setting: "per-entry cap", value: "\(Int((r.maxEntryFraction * 100).rounded()))% of memory",
                because: r.entryCaps.map { "\(Int((Double($0.name) ?? 0) * 100))%: \(figures($0))" }.joined(separator: ", ")),
            Recommendation.Reason(
                setting: "memory warning", value: r.warningReaction,
                because: "\(reaction.map(figures) ?? "") with the recorded warnings, \(reaction?.refetches ?? 0) entries downloaded again; purge-all \(purge.map(figures) ?? ""), \(purge?.refetches ?? 0)"),
            Recommendation.Reason(
                setting: "time to live", value: "none",
                because: String(format: "a user asks for a URL again within %.0f s in 99%% of cases (longest %.0f s); an expiry only loses hits, invalidate changed pictures instead", r.reuseIntervalP99Seconds, r.longestReuseIntervalSeconds)),
        ]
        if let disk = r.diskBytes, let budget = r.diskBudgetBytes {
            let kneePoint = r.diskCurve.first { $0.bytes == disk }
            reasons.append(.init(
                setting: "disk", value: ByteSize.format(disk),
                because: (goal == .hits ? "\(percent(kneePoint?.hitRatio ?? 0)) of requests hit memory or disk" : kneePoint.map(figures) ?? "")
                    + " at this size" + doubling(r.diskCurve, at: disk, budget: budget)))
        }
        if let whole = r.whole {
            reasons.append(.init(
                setting: "together", value: "the pipeline",
                because: "\(figures(whole)) from either tier with the recorded warnings, every setting above at once (recommend --write-pipeline)"))
        }
        if let current = r.current {
            let gain = r.whole.map { String(format: "; the recommendation %+.1f points", ($0.hitRatio - current.hitRatio) * 100) } ?? ""
            reasons.append(.init(
                setting: "yours", value: current.name,
                because: "\(figures(current)) from either tier with the recorded warnings, your pipeline file as it is\(gain)"))
        }
        return reasons
    }
}
