import ImagePipeline
@_spi(Simulation) import CacheEngine
/// What a simulation is asked to run.
public struct SimulationConfiguration: Sendable, Hashable {
    /// The memory tier's limits.
    public var limits: CacheLimits
    /// The memory tier's eviction policy: a built-in one, or `.custom` for your own.
    public var policy: EvictionPolicyKind
    /// Memory entries expire this long after insertion (trace time); nil for never.
    public var timeToLive: Duration?
    /// How the memory tier reacts to a warning of each level.
    public var pressure: MemoryPressurePolicy
    /// Where memory warnings come from.
    public var warnings: WarningSource
    /// A disk tier behind the memory tier (entries sized by the bytes a miss
    /// downloads), or nil for memory only.
    public var disk: DiskTier?
    /// Whether invalidations in the trace are honoured (a pipeline that never
    /// invalidates serves stale pictures).
    public var honoursInvalidations: Bool
    /// Requests in flight together (detailed traces), as a live pipeline
    /// driven with this many concurrent requests: a miss's thumbnail lands in
    /// memory (and on disk), oldest first, once more than a third of the
    /// window's places have been taken after it by misses and joins, or
    /// sooner when the window is full or an event comes; a request for a
    /// thumbnail in flight joins it.
    /// Downloads are short next to decoding (as on the loopback replay): one
    /// is in flight at a time, its original landing on disk when the next
    /// starts, and another size of the URL asked for before then shares it.
    /// 0 or 1: each request lands before the next starts.
    /// With a `network`, time decides instead (`RequestClock`): a thumbnail lands when it is
    /// ready, and this is the app's limit on requests waiting for images (0: none).
    public var inFlight: Int
    /// How memory misses for one URL share a download.
    public var coalescing: FetchCoalescing
    /// The memory tier's stripes, split as a striped `MemoryCache` splits its keys.
    public var stripes: CacheStripes
    /// The phone the app runs on (detailed traces): its footprint brings warnings and ends
    /// the app past the limit (`DeviceFootprint`); nil for a phone with memory to spare.
    public var device: DeviceModel?
    /// With a network, the run keeps a clock: joins and landings follow from
    /// time, and every request is timed (`SimulationResult.timeToImage`): transfers on this
    /// network, decodes and disk reads at `deviceCosts`.
    public var network: NetworkProfile?
    public var deviceCosts = DeviceCosts.thisMachine
    /// On a clock, when requests arrive.
    public var arrivals = Arrivals.recorded
    /// On a clock, how long a download waits for its response to begin before it fails, as
    /// the live fetcher's does (`RequestTimeout`): its request, those that share its
    /// download and those that joined them are not shown. Nil: never.
    public var requestTimeout: Duration? = RequestTimeout.standard

    /// When a clocked run's requests arrive (`network`).
    public enum Arrivals: String, Sendable, Hashable, CaseIterable {
        /// At their trace times.
        case recorded
        /// Each as soon as the app has a place for it (`inFlight`), as `replay --speed 0` sends them.
        case backToBack = "back-to-back"
    }

    /// How memory misses for one URL share a download.
    public enum FetchCoalescing: Sendable, Hashable, CustomStringConvertible {
        /// `ImagePipeline`'s: every waiter is answered, a URL can be fetched again
        /// once its flight ends, a cancel leaves the others waiting.
        case perWaiter
        /// None: a load that misses memory downloads on its own, even while
        /// another load of the same URL is in flight (Vanilladin's parallel
        /// page loads consult only the `NSCache`).
        case none
        /// My Market's `ImageCache` as shipped (APPS.md): the
        /// waiting entry a URL's first load makes is never removed, except by
        /// `cancel(url:)`, and any load that finds it returns without calling
        /// back. So a second caller for a URL in flight is dropped; after
        /// success, once the image has left the memory cache, the URL is never
        /// fetched again; after an error (offline), neither; `cancel(url:)` stops
        /// the transfer for every waiter and forgets the entry. A relaunch
        /// starts a new process and an empty table. Every dropped load is a
        /// request never answered.
        case myMarketAsShipped

        public var description: String {
            switch self {
            case .perWaiter: "per-waiter"
            case .none: "none"
            case .myMarketAsShipped: "mymarket-as-shipped"
            }
        }
    }

    public struct DiskTier: Sendable, Hashable {
        public var byteLimit: Int
        public var countLimit: Int
        public var lowWaterFraction: Double
        /// What the disk keeps. A plain trace has one object per key, so only
        /// its originals are modelled.
        public var policy: DiskCachePolicy

        public init(byteLimit: Int, countLimit: Int = .max, lowWaterFraction: Double = 0.7, policy: DiskCachePolicy = .originals) {
            self.byteLimit = byteLimit
            self.countLimit = countLimit
            self.lowWaterFraction = lowWaterFraction
            self.policy = policy
        }
    }

    /// Where memory warnings come from.
    public enum WarningSource: Sendable, Hashable, CustomStringConvertible {
        /// The warnings recorded in the trace.
        case trace
        /// None at all.
        case none
        /// A warning every so many seconds of trace time (at most one per request gap).
        case every(seconds: Double)
        /// A warning whenever an insert leaves the memory tier holding more than this cost.
        case costAbove(Int)

        public var description: String {
            switch self {
            case .trace: "trace"
            case .none: "none"
            case .every(let seconds): "every:\(seconds == seconds.rounded() && seconds < 1e15 ? String(Int(seconds)) : String(seconds))s"
            case .costAbove(let cost): "above:\(ByteCountText.string(cost))"
            }
        }
    }

    public init(
        limits: CacheLimits, policy: EvictionPolicyKind, timeToLive: Duration? = nil,
        pressure: MemoryPressurePolicy = .purgeAll, warnings: WarningSource = .trace, disk: DiskTier? = nil,
        honoursInvalidations: Bool = true, inFlight: Int = 0, coalescing: FetchCoalescing = .perWaiter,
        stripes: CacheStripes = .single, device: DeviceModel? = nil, network: NetworkProfile? = nil
    ) {
        self.limits = limits
        self.policy = policy
        self.timeToLive = timeToLive
        self.pressure = pressure
        self.warnings = warnings
        self.disk = disk
        self.honoursInvalidations = honoursInvalidations
        self.inFlight = inFlight
        self.coalescing = coalescing
        self.stripes = stripes
        self.device = device
        self.network = network
    }

    /// The limits stripe 0's policy is built with (all of them, unstriped).
    var firstStripeLimits: CacheLimits { stripes.limits(ofStripe: 0, in: limits) }
}

/// Runs a trace through a policy with the same `CacheCore` the live cache uses.
public enum CacheSimulator {
    /// Runs `trace` under `configuration`, one request at a time (or `inFlight`
    /// together): deterministic, so the same inputs always give the same figures.
    /// A `.custom` policy runs through generic code, slower than the built-in ones.
    public static func run(_ trace: SimulationTrace, _ configuration: SimulationConfiguration) -> SimulationResult {
        configuration.policy.withPolicy(limits: configuration.firstStripeLimits, PolicyLoop(trace: trace, configuration: configuration, recordsAnswers: false)).result
    }

    /// Runs a plain trace as it streams in (`PlainTraceStream`), one chunk after another
    /// through the same state and steps as `run(_:_:)` on the whole trace, so the figures are
    /// the same. Call the stream's `finished()` before trusting them: a stream that failed ends
    /// early.
    public static func run(_ cursor: consuming PlainTraceStream.Cursor, _ configuration: SimulationConfiguration) -> SimulationResult {
        // Boxed: the loop takes the cursor out, so nothing else holds the chunks it has passed.
        let rest = CursorBox(consume cursor)
        guard let first = rest.cursor?.next() else { return run(SimulationTrace(), configuration) }
        return configuration.policy.withPolicy(
            limits: configuration.firstStripeLimits, StreamLoop(first: first, rest: rest, configuration: configuration))
    }

    /// Runs a detailed trace and also says where each request was answered:
    /// what a live replay is compared with, request by request.
    public static func answers(_ trace: SimulationTrace, _ configuration: SimulationConfiguration) -> Answered {
        configuration.policy.withPolicy(limits: configuration.firstStripeLimits, PolicyLoop(trace: trace, configuration: configuration, recordsAnswers: true))
    }

    /// Where one request was answered.
    public enum Answer: UInt8, Sendable, Hashable, CaseIterable {
        /// From memory, or by joining a flight for the same thumbnail (`joined`).
        case memory, joined, disk, origin, cancelled, offline
        /// Never answered: the app's coalescer dropped it (`FetchCoalescing.myMarketAsShipped`).
        case unanswered
        /// Never shown: the system ended the app while it was in flight (`SimulationConfiguration.device`).
        case lost
    }

    /// A run with its answers, request by request.
    public struct Answered: Sendable {
        public var result: SimulationResult
        /// Empty for a plain trace.
        public var answers: [Answer]
        /// Origin misses that shared a download another size of the URL was making (with `inFlight`).
        public var sharedDownloads: Int
        /// On a clock, each request's time to image in microseconds (`TimeToImage.untimed`:
        /// none, as for a cancelled request); empty without one.
        public var times: [UInt32] = []
        /// On a clock, when each request was asked for, in nanoseconds from the run's start; empty without one.
        public var asked: [UInt64] = []
    }

    /// The loop, specialised per policy type by the visitor.
    private struct PolicyLoop: EvictionPolicyVisitor {
        let trace: SimulationTrace
        let configuration: SimulationConfiguration
        let recordsAnswers: Bool
        static let prefetchDistance = 16
        static let entryPrefetchDistance = 4
        static let neighbourPrefetchDistance = 2

        func visit<Policy: EvictionPolicy>(_ policy: Policy) -> Answered {
            var state = SimulationState(trace: trace, configuration: configuration, policy: policy)
            if recordsAnswers, trace.hasDetails {
                state.accounting.answers = Array(repeating: .origin, count: trace.count)
                state.clock?.keepTimesByRequest(trace.count)
            }
            trace.keys.withUnsafeBufferPointer { keys in
                trace.costs.withUnsafeBufferPointer { costs in
                    trace.sizes.withUnsafeBufferPointer { sizes in
                        trace.times.withUnsafeBufferPointer { times in
                            if trace.hasDetails {
                                for index in 0..<keys.count {
                                    state.beforeRequest(index, now: times[index])
                                    state.detailedRequest(index, key: keys[index], cost: costs[index], size: sizes[index], now: times[index])
                                }
                            } else {
                                Self.plainRequests(&state, keys: keys, costs: costs, sizes: sizes, times: times, from: 0)
                            }
                        }
                    }
                }
            }
            state.landAll()
            return Answered(
                result: state.finish(), answers: state.accounting.answers, sharedDownloads: state.accounting.sharedDownloads,
                times: state.clock?.timesByRequest ?? [], asked: state.clock?.askedByRequest ?? [])
        }

        /// The plain requests of a trace or of a streamed chunk, the first numbered `first`.
        @inline(__always)
        static func plainRequests<Policy: EvictionPolicy>(
            _ state: inout SimulationState<Policy>, keys: UnsafeBufferPointer<TraceKey>, costs: UnsafeBufferPointer<Int>,
            sizes: UnsafeBufferPointer<Int>, times: UnsafeBufferPointer<UInt64>, from first: Int
        ) {
            // A key's line is usually far from the last one's: ask for where it is
            // `prefetchDistance` requests early, once that has arrived for its policy
            // metadata, and once that has for what a hit on it writes besides (its
            // neighbours in a list), so the loading overlaps the work between.
            let last = keys.count - 1
            guard state.clock != nil else {
                for index in 0..<keys.count {
                    state.prefetch(keys[min(index &+ prefetchDistance, last)])
                    state.prefetchEntry(keys[min(index &+ entryPrefetchDistance, last)])
                    state.prefetchNeighbours(keys[min(index &+ neighbourPrefetchDistance, last)])
                    state.beforeRequest(first &+ index, now: times[index])
                    state.plainRequest(key: keys[index], cost: costs[index], size: sizes[index], now: times[index])
                }
                return
            }
            // On a clock the same steps, each request started and timed by it.
            for index in 0..<keys.count {
                state.prefetch(keys[min(index &+ prefetchDistance, last)])
                state.prefetchFlight(keys[min(index &+ prefetchDistance, last)])
                state.prefetchEntry(keys[min(index &+ entryPrefetchDistance, last)])
                state.prefetchNeighbours(keys[min(index &+ neighbourPrefetchDistance, last)])
                state.beforeRequest(first &+ index, now: times[index])
                state.plainRequestOnClock(first &+ index, key: keys[index], cost: costs[index], size: sizes[index], now: times[index])
            }
        }
    }

    /// The rest of a stream, handed from the caller to the loop that consumes it.
    private final class CursorBox {
        var cursor: PlainTraceStream.Cursor?
        init(_ cursor: consuming PlainTraceStream.Cursor) { self.cursor = cursor }
    }

    /// `PolicyLoop`'s plain steps over a stream's chunks, the state growing by each chunk's new keys.
    private struct StreamLoop: EvictionPolicyVisitor {
        let first: PlainTraceChunk
        let rest: CursorBox
        let configuration: SimulationConfiguration

        func visit<Policy: EvictionPolicy>(_ policy: Policy) -> SimulationResult {
            guard var cursor = rest.cursor.take() else { preconditionFailure("a stream's loop runs once") }
            var state = SimulationState(trace: first.trace(), configuration: configuration, policy: policy)
            var chunk = first, requests = 0
            while true {
                chunk.keys.withUnsafeBufferPointer { keys in
                    chunk.weights.withUnsafeBufferPointer { weights in
                        chunk.times.withUnsafeBufferPointer { times in
                            PolicyLoop.plainRequests(&state, keys: keys, costs: weights, sizes: weights, times: times, from: requests)
                        }
                    }
                }
                requests += chunk.count
                guard let next = cursor.next() else { break }
                state.admit(next.newFingerprints)
                chunk = next
            }
            state.landAll()
            return state.finish(requests: requests)
        }
    }
}
