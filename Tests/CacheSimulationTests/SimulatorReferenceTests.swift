import Testing
@testable import ImagePipeline
import CacheSimulation

/// The simulator's tiers against a brute-force model of them: a dictionary and a
/// list per tier, the in-flight window as a plain array searched end to end. Random
/// detailed traces run under every policy, coalescing mode, in-flight window and disk
/// policy; after every request (each prefix of the trace, landed) the answers, the
/// costs held at their peak and the entries counted must be the model's.
@Suite("Simulator against a brute-force model of its tiers, after every request")
struct SimulatorReferenceTests {
    @Test("every policy × coalescing × window × disk policy agrees with the model on random traces")
    func agreesWithModel() {
        var random = SplitMix64(seed: 39)
        let coalescings: [SimulationConfiguration.FetchCoalescing] = [.perWaiter, .none, .myMarketAsShipped]
        var cases = 0
        for policy in EvictionPolicyKind.allCases {
            for coalescing in coalescings {
                for round in 0..<4 {
                    let trace = RandomTrace(&random, requests: 36)
                    let inFlight = [1, 2, 3, 10][round]
                    let diskPolicy: DiskCachePolicy? = [nil, .originals, .both, .originals][Int(random.next() % 4)]
                    // Limits only where the model knows the policy's order: LRU's list.
                    let limited = policy == .lru && round % 2 == 1
                    let limits = limited
                        ? CacheLimits(costLimit: 6 + Int(random.next() % 10), maxEntryFraction: 0.5)
                        : CacheLimits(costLimit: .max, maxEntryFraction: 1)
                    let configuration = SimulationConfiguration(
                        limits: limits, policy: policy, warnings: .none,
                        disk: diskPolicy.map { .init(byteLimit: .max, policy: $0) }, inFlight: inFlight, coalescing: coalescing)
                    for length in 1...trace.requests.count {
                        let prefix = trace.simulationTrace(length)
                        let simulated = CacheSimulator.answers(prefix, configuration)
                        var model = TierModel(configuration, trace: trace)
                        model.run(length)
                        let context = "\(policy) \(coalescing) in flight \(inFlight) disk \(diskPolicy.map { "\($0)" } ?? "none") after \(length) requests"
                        #expect(simulated.answers == model.answers, "\(context)")
                        #expect(simulated.result.peakMemoryCost == model.peakMemoryCost, "\(context): peak memory")
                        #expect(simulated.result.statistics.resident == model.memory.count, "\(context): entries held")
                        #expect(simulated.result.statistics.insertions == model.insertions, "\(context): insertions")
                        #expect(simulated.result.peakDiskBytes == model.peakDiskBytes, "\(context): peak disk")
                        #expect(simulated.sharedDownloads == model.sharedDownloads, "\(context): shared downloads")
                        if simulated.answers != model.answers || simulated.result.peakMemoryCost != model.peakMemoryCost { return }
                    }
                    cases += 1
                }
            }
        }
        #expect(cases == EvictionPolicyKind.allCases.count * 12)
    }

    @Test("a thumbnail landing twice is held once: ten in flight, no coalescing, one image asked three times")
    func repeatedLandingIsHeldOnce() {
        var trace = SimulationTrace()
        for key in 0..<39 {
            _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint)
            _ = trace.addDiskKey()
        }
        for key in [0, 0, 0] + Array(1..<39) {
            trace.append(key: Slot(key), cost: 10, size: 100, time: 0,
                         detail: .init(diskKey: Slot(key), content: Int32(key), url: Int32(key)))
        }
        for policy in EvictionPolicyKind.allCases {
            let result = CacheSimulator.run(trace, SimulationConfiguration(
                limits: CacheLimits(costLimit: .max, maxEntryFraction: 1), policy: policy,
                disk: .init(byteLimit: .max), inFlight: 10, coalescing: .none))
            #expect(result.peakMemoryCost == 39 * 10, "\(policy)")
            #expect(result.statistics.resident == 39, "\(policy)")
            #expect(result.peakDiskBytes == 39 * 100, "\(policy)")
        }
    }
}

/// A random detailed trace: few keys so that repeats, joins and shared downloads happen;
/// two display sizes of some URLs (one original on disk, two memory keys).
private struct RandomTrace {
    struct Request {
        let key: Int, url: Int, cost: Int, size: Int
        let outcome: SimulationTrace.MissOutcome
    }
    let keys = 8
    var requests: [Request] = []

    init(_ random: inout SplitMix64, requests count: Int) {
        for _ in 0..<count {
            let key = Int(random.next() % UInt64(keys))
            let roll = random.next() % 10
            requests.append(Request(
                key: key, url: key / 2, cost: 1 + key % 3, size: 10 + key,
                outcome: roll == 0 ? .cancelled : roll == 1 ? .offline : .store))
        }
    }

    /// Memory keys 0..<8; disk keys: originals 0..<4 (one per URL), thumbnails 4..<12.
    func simulationTrace(_ length: Int) -> SimulationTrace {
        var trace = SimulationTrace()
        for key in 0..<keys { _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint) }
        for _ in 0..<(keys / 2 + keys) { _ = trace.addDiskKey() }
        for request in requests.prefix(length) {
            trace.append(key: Slot(request.key), cost: request.cost, size: request.size, time: 0, detail: .init(
                diskKey: Slot(request.url), diskThumbnailKey: Slot(keys / 2 + request.key), thumbnailBytes: request.cost + 1,
                content: Int32(request.url), url: Int32(request.url), outcome: request.outcome))
        }
        return trace
    }
}

/// The tiers as the simulator documents them, written the slow, obvious way.
private struct TierModel {
    let configuration: SimulationConfiguration
    let trace: RandomTrace
    let plan: TierPlan
    /// Memory: key → cost, and keys least recent first (LRU's order).
    var memory: [Int: Int] = [:]
    var memoryOrder: [Int] = []
    /// Disk: key → bytes.
    var disk: [Int: Int] = [:]
    /// Flights not landed, oldest first, with the places taken when each started (its own included).
    var pending: [(index: Int, source: TierPlan.Source, fate: TierPlan.Fate, joiners: Int, started: Int)] = []
    /// Places taken in the window so far: a flight or a join takes one.
    var placesTaken = 0
    var downloads: [(index: Int, stores: Bool)] = []
    var waiting: Set<Int> = []
    var answers: [CacheSimulator.Answer] = []
    var peakMemoryCost = 0, peakDiskBytes = 0, insertions = 0, sharedDownloads = 0

    init(_ configuration: SimulationConfiguration, trace: RandomTrace) {
        self.configuration = configuration
        self.trace = trace
        plan = TierPlan(diskPolicy: configuration.disk?.policy)
    }

    var window: Int { max(configuration.inFlight, 1) }

    mutating func run(_ length: Int) {
        for index in 0..<length { request(index) }
        while !pending.isEmpty { landOldest() }
        while !downloads.isEmpty { landOldestDownload() }
    }

    mutating func request(_ index: Int) {
        // The oldest flight lands once more than a third of a window of places were taken after it,
        // or when the window is full.
        while let oldest = pending.first,
              placesTaken - oldest.started > max(window / 3, 1) || pending.reduce(0, { $0 + 1 + $1.joiners }) >= window {
            landOldest()
        }
        let request = trace.requests[index]
        if memory[request.key] != nil {
            memoryOrder.removeAll { $0 == request.key }
            memoryOrder.append(request.key)
            return answers.append(.memory)
        }
        if configuration.coalescing == .myMarketAsShipped {
            guard waiting.insert(request.url).inserted else { return answers.append(.unanswered) }
        }
        if window > 1, configuration.coalescing == .perWaiter,
           let flight = pending.lastIndex(where: { trace.requests[$0.index].key == request.key }) {
            pending[flight].joiners += 1
            placesTaken += 1
            return answers.append(.joined)
        }
        var source = TierPlan.Source.origin
        for kind in plan.diskLookups where disk[diskKey(kind == .thumbnail, index)] != nil {
            source = TierPlan.Source(disk: kind)
            break
        }
        let shares = window > 1 && configuration.coalescing == .perWaiter
            && downloads.contains(where: { trace.requests[$0.index].url == request.url })
        let fate = request.outcome.fate(at: source, sharesDownload: source == .origin && shares)
        answers.append(source != .origin ? .disk : fate == .offline ? .offline : fate == .abandoned ? .cancelled : .origin)
        if source == .origin {
            if fate == .abandoned { waiting.remove(request.url) }
            guard fate == .answered else { return }
            let stores = plan.stores(after: .origin, fate).contains(.diskOriginal)
            if window == 1 {
                if stores { storeOnDisk(diskKey(false, index), bytes: request.size) }
            } else if shares {
                sharedDownloads += 1
            } else {
                downloads.append((index, stores))
                while downloads.count > 1 { landOldestDownload() }
            }
        }
        if window == 1 {
            land(index, source, fate)
        } else {
            placesTaken += 1
            pending.append((index, source, fate, 0, placesTaken))
        }
    }

    func diskKey(_ thumbnail: Bool, _ index: Int) -> Int {
        thumbnail ? trace.keys / 2 + trace.requests[index].key : trace.requests[index].url
    }

    mutating func landOldest() {
        let landing = pending.removeFirst()
        while let first = downloads.first, first.index <= landing.index { landOldestDownload() }
        land(landing.index, landing.source, landing.fate)
    }

    mutating func landOldestDownload() {
        let download = downloads.removeFirst()
        if download.stores { storeOnDisk(diskKey(false, download.index), bytes: trace.requests[download.index].size) }
    }

    mutating func land(_ index: Int, _ source: TierPlan.Source, _ fate: TierPlan.Fate) {
        let request = trace.requests[index]
        let stores = plan.stores(after: source, fate)
        if stores.contains(.memory) { insertInMemory(request.key, cost: request.cost) }
        if stores.contains(.diskThumbnail) { storeOnDisk(diskKey(true, index), bytes: request.cost + 1) }
    }

    /// A key already held is replaced: it leaves, then enters as new.
    mutating func insertInMemory(_ key: Int, cost: Int) {
        memory[key] = nil
        memoryOrder.removeAll { $0 == key }
        let limits = configuration.limits
        guard limits.admits(cost: cost) else { return }
        while memory.values.reduce(0, +) + cost > limits.costLimit || memory.count + 1 > limits.countLimit {
            memory[memoryOrder.removeFirst()] = nil
        }
        memory[key] = cost
        memoryOrder.append(key)
        insertions += 1
        peakMemoryCost = max(peakMemoryCost, memory.values.reduce(0, +))
    }

    mutating func storeOnDisk(_ key: Int, bytes: Int) {
        disk[key] = bytes
        peakDiskBytes = max(peakDiskBytes, disk.values.reduce(0, +))
    }
}
