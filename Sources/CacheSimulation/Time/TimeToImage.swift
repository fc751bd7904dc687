/// How long requests waited for their image on the simulator's clock, overall and by where
/// the image came from, with the bytes the network carried. Milliseconds.
public struct TimeToImage: Sendable, Codable, Equatable {
    public enum Tier: String, Sendable, Codable, CaseIterable {
        case memory, joined, disk, origin
    }

    /// A request with no time in a run's times by request: not answered, or never shown.
    public static let untimed = UInt32.max

    /// The network profile's name (`NetworkProfile.name`) and its figures (`description`).
    public var network: String
    public var networkDetails: String
    public var overall: Percentiles
    /// By tier's raw value; tiers no request came from are absent.
    public var byTier: [String: Percentiles]
    public var networkBytes: Int
    /// Requests whose image was still loading when the app's process ended (a relaunch, the
    /// next session): never shown, so not among the times.
    public var neverShown: Int
    /// Requests never shown because their download timed out before its response began
    /// (`SimulationConfiguration.requestTimeout`), those that shared it or joined them included;
    /// nil in results written before the clock had the timeout.
    public var timedOut: Int?
    /// "back-to-back" when the requests arrived as soon as the app had a place for them
    /// (`SimulationConfiguration.Arrivals`); nil at their trace times.
    public var arrivals: String? = nil

    public struct Percentiles: Sendable, Codable, Equatable {
        public var count: Int
        public var p50: Double
        public var p90: Double
        public var p95: Double
        public var p99: Double
        public var mean: Double

        /// Nearest-rank percentiles of `microseconds`, sorted.
        public init(sorted microseconds: [UInt32]) {
            func at(_ percent: Int) -> Double {
                guard !microseconds.isEmpty else { return 0 }
                let rank = (percent * microseconds.count + 99) / 100
                return Double(microseconds[max(rank, 1) - 1]) / 1000
            }
            count = microseconds.count
            p50 = at(50)
            p90 = at(90)
            p95 = at(95)
            p99 = at(99)
            let total = microseconds.reduce(0) { $0 + Int($1) }
            mean = count == 0 ? 0 : (Double(total) / Double(count)).rounded() / 1000
        }
    }
}

/// The clock's times as they are recorded: whole microseconds by tier, sorted once at the end
/// for exact percentiles.
struct TimeToImageRecorder {
    /// By tier, in `Tier.allCases`' order: four arrays, not an array of them, so an append
    /// checks one buffer's uniqueness, not two.
    private var memory: [UInt32] = [], joined: [UInt32] = [], disk: [UInt32] = [], origin: [UInt32] = []
    private var byTier: [[UInt32]] { [memory, joined, disk, origin] }
    var neverShown = 0
    var timedOut = 0
    /// Per request, its time (`TimeToImage.untimed` where it has none), when asked for: a live
    /// replay sets each request's time beside live's.
    private(set) var byRequest: [UInt32] = []
    /// Per request, when it was asked for (nanoseconds on the clock), kept with `byRequest`.
    private(set) var askedByRequest: [UInt64] = []

    init(requests: Int? = nil) {
        if let requests {
            byRequest = Array(repeating: TimeToImage.untimed, count: requests)
            askedByRequest = Array(repeating: 0, count: requests)
        }
    }

    mutating func asked(_ request: Int, at nanoseconds: UInt64) {
        if !askedByRequest.isEmpty { askedByRequest[request] = nanoseconds }
    }

    mutating func record(_ tier: TimeToImage.Tier, _ nanoseconds: UInt64, request: Int) {
        let microseconds = UInt32(min(nanoseconds / 1_000, UInt64(UInt32.max - 1)))
        switch tier {
        case .memory: memory.append(microseconds)
        case .joined: joined.append(microseconds)
        case .disk: disk.append(microseconds)
        case .origin: origin.append(microseconds)
        }
        if !byRequest.isEmpty { byRequest[request] = microseconds }
    }

    func summary(network: NetworkProfile, networkBytes: Int, backToBack: Bool) -> TimeToImage {
        var tiers: [String: TimeToImage.Percentiles] = [:]
        var sortedTiers: [[UInt32]] = []
        for (tier, times) in zip(TimeToImage.Tier.allCases, byTier) where !times.isEmpty {
            let sorted = Self.sorted(times)
            sortedTiers.append(sorted)
            tiers[tier.rawValue] = .init(sorted: sorted)
        }
        // Every request's time: the tiers' sorted runs merged, not sorted again.
        let overall = TimeToImage.Percentiles(sorted: sortedTiers.reduce([], Self.merged))
        var time = TimeToImage(
            network: network.name, networkDetails: network.description, overall: overall, byTier: tiers, networkBytes: networkBytes,
            neverShown: neverShown)
        time.timedOut = timedOut
        if backToBack { time.arrivals = SimulationConfiguration.Arrivals.backToBack.rawValue }
        return time
    }

    /// `times` in order: a run of millions (a plain trace's) in two passes of 16 bits, a few
    /// by comparison.
    static func sorted(_ times: [UInt32]) -> [UInt32] {
        guard times.count > 1 << 16 else { return times.sorted() }
        var from = times, to = [UInt32](repeating: 0, count: times.count)
        var starts = [Int](repeating: 0, count: 1 << 16 + 1)
        for shift: UInt32 in [0, 16] {
            from.withUnsafeBufferPointer { from in
                to.withUnsafeMutableBufferPointer { to in
                    starts.withUnsafeMutableBufferPointer { starts in
                        starts.update(repeating: 0)
                        for time in from { starts[Int(time >> shift & 0xFFFF) &+ 1] &+= 1 }
                        for digit in 1..<starts.count { starts[digit] &+= starts[digit &- 1] }
                        for time in from {
                            let digit = Int(time >> shift & 0xFFFF)
                            to[starts[digit]] = time
                            starts[digit] &+= 1
                        }
                    }
                }
            }
            swap(&from, &to)
        }
        return from
    }

    /// Two sorted runs as one.
    static func merged(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        guard !a.isEmpty, !b.isEmpty else { return a.isEmpty ? b : a }
        return [UInt32](unsafeUninitializedCapacity: a.count + b.count) { out, count in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    var i = 0, j = 0, k = 0
                    while i < a.count, j < b.count {
                        if b[j] < a[i] {
                            out[k] = b[j]
                            j &+= 1
                        } else {
                            out[k] = a[i]
                            i &+= 1
                        }
                        k &+= 1
                    }
                    while i < a.count { out[k] = a[i]; i &+= 1; k &+= 1 }
                    while j < b.count { out[k] = b[j]; j &+= 1; k &+= 1 }
                }
            }
            count = a.count + b.count
        }
    }
}
