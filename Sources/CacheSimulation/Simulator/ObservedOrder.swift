import ImagePipeline
@_spi(Simulation) import CacheEngine

/// The order in which a live pipeline took its decisions (`PipelineDecision`s, each
/// reported under the lock of the tier it was taken on) for a replayed trace's requests,
/// with the trace's events where the replay applied them. Run in this order
/// (`CacheSimulator.answers(_:_:observed:)`), the simulator meets the same interleaving
/// of requests in flight as the live run did, so the two must answer every request alike.
public struct ObservedOrder: Sendable, Hashable {
    public enum Step: Sendable, Hashable {
        /// A decision for the request at this position of the trace (-1 for none: a disk trim);
        /// for a store on disk, the bytes the entry took there (0: the trace's estimate stands).
        case decision(PipelineDecision, request: Int32, bytes: Int = 0)
        /// The trace's event at this index was applied.
        case event(Int32)
        /// The device model warned the app, or ended it, as this request's image was decoded.
        case device(DeviceStep, request: Int32)
    }

    /// What the device did (`DeviceFootprint.Verdict`).
    public enum DeviceStep: UInt8, Sendable, Hashable {
        case warning, critical, end
    }

    public private(set) var steps: [Step] = []

    public init(steps: [Step] = []) { self.steps = steps }

    public mutating func append(_ step: Step) { steps.append(step) }

    public var count: Int { steps.count }
}

extension CacheSimulator {
    /// Runs a detailed trace in the order a live replay took its decisions (`observed`)
    /// and says where each request was answered. Every tier decision (hit or miss,
    /// eviction, joining a flight or a download, finding an entry on disk) is the
    /// simulator's own, through the same `CacheCore`, `DiskIndexModel` and `TierPlan`;
    /// only what the trace cannot say comes from the log: when each step happened, and
    /// whether a flight left anything behind (nobody waiting any more, a failed write).
    /// A request the log never looked up is answered `.unanswered`. Flights are joined and
    /// downloads shared under `.perWaiter` coalescing, never under `.none`; under My Market's
    /// coalescer (`.myMarketAsShipped`) a flight step is its load (started or dropped) and a
    /// flight's end its `cancel(url:)`.
    public static func answers(
        _ trace: SimulationTrace, _ configuration: SimulationConfiguration, observed: ObservedOrder
    ) -> Answered {
        configuration.policy.withPolicy(limits: configuration.firstStripeLimits, ObservedRun(trace: trace, configuration: configuration, order: observed))
    }

    private struct ObservedRun: EvictionPolicyVisitor {
        let trace: SimulationTrace
        let configuration: SimulationConfiguration
        let order: ObservedOrder

        func visit<Policy: EvictionPolicy>(_ policy: Policy) -> Answered {
            var state = SimulationState(trace: trace, configuration: configuration, policy: policy)
            var flights = ObservedFlights(trace: trace)
            state.accounting.answers = Array(repeating: .unanswered, count: trace.count)
            state.tiers.trimsDiskAtOnce = false
            state.device.footprint = nil
            for step in order.steps {
                switch step {
                case .event(let index):
                    guard Int(index) < trace.events.count, !trace.times.isEmpty else { continue }
                    let event = trace.events[Int(index)]
                    state.apply(event.kind, now: trace.times[min(event.beforeRequest, trace.count - 1)])
                case .device(let step, let request):
                    guard request >= 0, Int(request) < trace.count else { continue }
                    state.observedDevice(step, Int(request))
                case .decision(.diskTrimmed, _, _):
                    if state.tiers.disk != nil { state.tiers.trimDisk() }
                case .decision(let decision, let request, let bytes):
                    guard request >= 0, Int(request) < trace.count else { continue }
                    state.observed(decision, Int(request), bytes: bytes, &flights)
                }
            }
            flights.settleJoiners(&state)
            return Answered(result: state.finish(), answers: state.accounting.answers, sharedDownloads: state.accounting.sharedDownloads)
        }
    }
}

/// Who leads which flight and download while a trace runs in observed order, and what
/// each leader brings back.
struct ObservedFlights {
    /// Per memory key, the request leading its flight (-1: none).
    var flightLeader: [Int32]
    /// Per original's disk key, the request leading its download (-1: none).
    var downloadLeader: [Int32]
    /// Per request: where its leader (itself when it leads) found the image, and the picture.
    var source: [TierPlan.Source]
    var held: [(content: Int32, url: Int32)]
    /// Per request that joined a flight, the request leading it (-1: none).
    var joined: [Int32]
    /// Per request that shared a download, the request that started it (-1: none).
    var sharedDownload: [Int32]

    init(trace: SimulationTrace) {
        flightLeader = Array(repeating: -1, count: trace.keyCount)
        downloadLeader = Array(repeating: -1, count: trace.diskKeyCount)
        source = Array(repeating: .origin, count: trace.count)
        held = (0..<trace.count).map { (trace.contents[$0], trace.urls[$0]) }
        joined = Array(repeating: -1, count: trace.count)
        sharedDownload = Array(repeating: -1, count: trace.count)
    }

    /// A request that shared a download, or joined a flight, shares its leader's end:
    /// offline when the leader's download could not start, and otherwise the leader's
    /// picture (wrong or stale when not its own).
    func settleJoiners<Policy>(_ state: inout SimulationState<Policy>) {
        for (request, leader) in sharedDownload.enumerated() where leader >= 0 && state.accounting.answers[Int(leader)] == .offline {
            state.accounting.hitWasOffline(request, size: state.trace.sizes[request])
        }
        for (request, leader) in joined.enumerated() where leader >= 0 && state.accounting.answers[request] != .offline {
            guard state.accounting.answers[Int(leader)] != .offline else {
                state.accounting.hitWasOffline(request, size: state.trace.sizes[request])
                continue
            }
            state.accounting.check(served: held[Int(leader)], truth: (state.trace.contents[request], state.trace.urls[request]))
        }
    }
}

extension SimulationState {
    /// One logged decision, taken by the simulator's own tiers and counted as in trace order.
    /// `bytes`: what a disk store took live (its entry file), which replaces the trace's estimate when given.
    mutating func observed(_ decision: PipelineDecision, _ index: Int, bytes: Int = 0, _ flights: inout ObservedFlights) {
        let key = trace.keys[index], now = trace.times[index], size = trace.sizes[index]
        let truth = (content: trace.contents[index], url: trace.urls[index])
        switch decision {
        case .memoryLookup:
            noteSessionRequest(at: now)
            accounting.bytesRequested &+= size
            guard tiers.memory.lookup(key, now: now) else { return }
            accounting.hit(index, size: size, as: .memory)
            accounting.check(served: tiers.memoryHolds[Int(key)], truth: truth)
        case .flight:
            if inFlight.myMarket?.load(truth.url) == .drop { return accounting.unanswered(index, size: size) }
            // Only the pipeline's coalescer joins flights; an app without one sends every miss on alone.
            let leader = configuration.coalescing == .perWaiter ? flights.flightLeader[Int(key)] : -1
            if leader >= 0 {
                // Its picture is its leader's, checked once the leader's end is known.
                accounting.hit(index, size: size, as: .joined)
                flights.joined[index] = leader
            } else {
                flights.flightLeader[Int(key)] = Int32(index)
                accounting.answer(index, .origin)
            }
        case .diskReadThumbnail, .diskReadOriginal:
            guard flights.source[index] == .origin else { return }
            let kind: DiskEntryKind = decision == .diskReadThumbnail ? .thumbnail : .original
            let diskKey = kind == .thumbnail ? trace.diskThumbnailKeys[index] : trace.diskKeys[index]
            guard tiers.readDisk(diskKey) else { return }
            flights.source[index] = TierPlan.Source(disk: kind)
            flights.held[index] = tiers.diskHolds[Int(diskKey)]
            accounting.diskHit(index, size: size)
            accounting.check(served: flights.held[index], truth: truth)
            noteRefetch(key, size: size, fromOrigin: false)
        case .download:
            let original = trace.diskKeys[index]
            let shares = configuration.coalescing == .perWaiter && original >= 0 && flights.downloadLeader[Int(original)] >= 0
            switch trace.outcomes[index].fate(at: .origin, sharesDownload: shares) {
            case .offline: accounting.offline(index, size: size)
            case .abandoned: accounting.cancelled(index, size: size)
            case .answered, .invalidatedMeanwhile:
                noteRefetch(key, size: size, fromOrigin: true)
                accounting.downloaded(index, picture: truth.content)
            }
            if shares {
                accounting.sharedDownloads += 1
                flights.sharedDownload[index] = flights.downloadLeader[Int(original)]
            } else if original >= 0 {
                flights.downloadLeader[Int(original)] = Int32(index)
            }
        case .originalStored:
            guard tiers.disk != nil else { return }
            landOriginal(index, storedBytes: bytes)
        case .downloadEnded:
            let original = trace.diskKeys[index]
            if original >= 0, flights.downloadLeader[Int(original)] == Int32(index) { flights.downloadLeader[Int(original)] = -1 }
        case .memoryStored, .thumbnailStored:
            guard decision == .memoryStored || tiers.disk != nil else { return }
            let landing = Landing(
                index: index, key: key, cost: trace.costs[index], size: size, now: now, source: flights.source[index],
                fate: .answered, held: flights.held[index])
            store(landing, decision == .memoryStored ? .memory : .diskThumbnail, storedBytes: bytes)
        case .flightEnded:
            // My Market's coalescer forgets a URL's entry only when the app cancels it.
            inFlight.myMarket?.cancel(truth.url)
            if flights.flightLeader[Int(key)] == Int32(index) { flights.flightLeader[Int(key)] = -1 }
        case .failed:
            // Live answered with an error the trace does not know of (a download that broke or
            // timed out): nothing shown, as an offline miss.
            accounting.hitWasOffline(index, size: size)
        case .diskTrimmed:
            break
        }
    }
}
