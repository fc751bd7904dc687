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
            state.answers = Array(repeating: .unanswered, count: trace.count)
            state.trimsDiskAtOnce = false
            state.footprint = nil
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
                    if state.disk != nil { state.trimDisk() }
                case .decision(let decision, let request, let bytes):
                    guard request >= 0, Int(request) < trace.count else { continue }
                    state.observed(decision, Int(request), bytes: bytes, &flights)
                }
            }
            flights.settleJoiners(&state)
            return Answered(result: state.finish(), answers: state.answers, sharedDownloads: state.sharedDownloads)
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
    var held: [(content: Int32, source: Int32)]
    /// Per request that joined a flight, the request leading it (-1: none).
    var joined: [Int32]
    /// Per request that shared a download, the request that started it (-1: none).
    var sharedDownload: [Int32]

    init(trace: SimulationTrace) {
        flightLeader = Array(repeating: -1, count: trace.keyCount)
        downloadLeader = Array(repeating: -1, count: trace.diskKeyCount)
        source = Array(repeating: .origin, count: trace.count)
        held = (0..<trace.count).map { (trace.contents[$0], trace.sources[$0]) }
        joined = Array(repeating: -1, count: trace.count)
        sharedDownload = Array(repeating: -1, count: trace.count)
    }

    /// A request that shared a download, or joined a flight, shares its leader's end:
    /// offline when the leader's download could not start, and otherwise the leader's
    /// picture (wrong or stale when not its own).
    func settleJoiners<Policy>(_ state: inout SimulationState<Policy>) {
        for (request, leader) in sharedDownload.enumerated() where leader >= 0 && state.answers[Int(leader)] == .offline {
            state.answerOffline(request)
        }
        for (request, leader) in joined.enumerated() where leader >= 0 && state.answers[request] != .offline {
            guard state.answers[Int(leader)] != .offline else {
                state.answerOffline(request)
                continue
            }
            state.check(served: held[Int(leader)], truth: (state.trace.contents[request], state.trace.sources[request]))
        }
    }
}

extension SimulationState {
    /// Answers a request with nothing shown (its download failed, or the one it waited on):
    /// a join it made is no longer a hit.
    mutating func answerOffline(_ index: Int) {
        guard answers[index] != .offline else { return }
        if answers[index] == .joined {
            hits &-= 1
            byteHits &-= trace.sizes[index]
        }
        result.offlineMisses += 1
        result.unservedBytes += trace.sizes[index]
        answers[index] = .offline
    }

    /// One logged decision, taken by the simulator's own tiers. `bytes`: what a disk store took
    /// live (its entry file), which replaces the trace's estimate when given.
    mutating func observed(_ decision: PipelineDecision, _ index: Int, bytes: Int = 0, _ flights: inout ObservedFlights) {
        let key = trace.keys[index], now = trace.times[index], size = trace.sizes[index]
        let truth = (content: trace.contents[index], source: trace.sources[index])
        switch decision {
        case .memoryLookup:
            noteSessionRequest(at: now)
            bytesRequested &+= size
            guard memoryTier.lookup(key, now: now) else { return }
            hits &+= 1
            byteHits &+= size
            check(served: memoryHolds[Int(key)], truth: truth)
            answers[index] = .memory
        case .flight:
            if myMarket?.load(truth.source) == .drop {
                result.unansweredRequests += 1
                result.unservedBytes += size
                answers[index] = .unanswered
                return
            }
            // Only the pipeline's coalescer joins flights; an app without one sends every miss on alone.
            let leader = configuration.coalescing == .perWaiter ? flights.flightLeader[Int(key)] : -1
            if leader >= 0 {
                hits &+= 1
                byteHits &+= size
                flights.joined[index] = leader
                answers[index] = .joined
            } else {
                flights.flightLeader[Int(key)] = Int32(index)
                answers[index] = .origin
            }
        case .diskReadThumbnail, .diskReadOriginal:
            guard disk != nil, flights.source[index] == .origin else { return }
            let kind: DiskEntryKind = decision == .diskReadThumbnail ? .thumbnail : .original
            let diskKey = kind == .thumbnail ? trace.diskThumbnailKeys[index] : trace.diskKeys[index]
            guard diskKey >= 0, disk!.contains(diskKey) else { return }
            disk!.recordAccess(diskKey)
            flights.source[index] = TierPlan.Source(disk: kind)
            flights.held[index] = diskHolds[Int(diskKey)]
            result.diskHits += 1
            result.diskByteHits += size
            check(served: flights.held[index], truth: truth)
            noteRefetch(key, size: size, fromOrigin: false)
            answers[index] = .disk
        case .download:
            let original = trace.diskKeys[index]
            // Sharing a download in flight, a request never starts one of its own: the app's
            // cancel (at its download's start) and the device being offline (its download
            // failing) do not reach it, and it is answered with the shared bytes.
            let shares = configuration.coalescing == .perWaiter && original >= 0 && flights.downloadLeader[Int(original)] >= 0
            switch shares ? .answered : trace.outcomes[index].fate(at: .origin) {
            case .offline:
                result.offlineMisses += 1
                result.unservedBytes += size
                answers[index] = .offline
            case .abandoned:
                result.cancelledTransfers += 1
                result.unservedBytes += size
                answers[index] = .cancelled
            case .answered, .invalidatedMeanwhile:
                noteRefetch(key, size: size, fromOrigin: true)
                if downloadedBefore[Int(truth.content)] { result.duplicateDownloads += 1 }
                downloadedBefore[Int(truth.content)] = true
                answers[index] = .origin
            }
            if shares {
                sharedDownloads += 1
                flights.sharedDownload[index] = flights.downloadLeader[Int(original)]
            } else if original >= 0 {
                flights.downloadLeader[Int(original)] = Int32(index)
            }
        case .originalStored:
            guard disk != nil else { return }
            landOriginal(index, storedBytes: bytes)
        case .downloadEnded:
            let original = trace.diskKeys[index]
            if original >= 0, flights.downloadLeader[Int(original)] == Int32(index) { flights.downloadLeader[Int(original)] = -1 }
        case .memoryStored:
            let source = flights.source[index]
            let thumbnailBytes = trace.thumbnailSizes[index]
            if insertInMemory(key, cost: trace.costs[index], missCost: source == .diskThumbnail ? thumbnailBytes : size, now: now) {
                memoryHolds[Int(key)] = flights.held[index]
            }
        case .thumbnailStored:
            let thumbnailKey = trace.diskThumbnailKeys[index]
            guard disk != nil, thumbnailKey >= 0 else { return }
            storeOnDisk(thumbnailKey, bytes: trace.thumbnailSizes[index], storedBytes: bytes)
            diskHolds[Int(thumbnailKey)] = flights.held[index]
        case .flightEnded:
            // My Market's coalescer forgets a URL's entry only when the app cancels it.
            myMarket?.cancel(truth.source)
            if flights.flightLeader[Int(key)] == Int32(index) { flights.flightLeader[Int(key)] = -1 }
        case .failed:
            // Live answered with an error the trace does not know of (a download that broke or
            // timed out): nothing shown, as an offline miss.
            answerOffline(index)
        case .diskTrimmed:
            break
        }
    }
}
