import Testing
@testable import ImagePipeline
@testable import CacheSimulation

@Suite("A phone's memory: the footprint warns the app and ends it past the limit")
struct DeviceModelTests {
    /// A phone whose app has 5 of its own, is warned at 40, critically at 44, and ended past 45.
    static let phone = DeviceModel(name: "test", limitBytes: 45, baselineBytes: 5, warningBytes: 40, criticalBytes: 44)

    /// Requests for `keys` in order, each image costing 10 decoded.
    static func trace(_ keys: [Slot], warningsBefore: Set<Int> = []) -> SimulationTrace {
        var trace = DetailedSimulationTests.emptyTrace(keys: (keys.max().map(Int.init) ?? 0) + 1)
        for (index, key) in keys.enumerated() {
            if warningsBefore.contains(index) { trace.appendMemoryWarning(.warning) }
            trace.append(key: key, cost: 10, size: 100, time: UInt64(index) * 1_000_000_000,
                         detail: .init(diskKey: key, content: Int32(key), url: Int32(key), outcome: .store))
        }
        return trace
    }

    static func configuration(_ policy: EvictionPolicyKind = .lru, reaction: MemoryPressureReaction = .ignore, inFlight: Int = 0,
                              device: DeviceModel? = phone) -> SimulationConfiguration {
        SimulationConfiguration(
            limits: CacheLimits(costLimit: 1_000, maxEntryFraction: 1), policy: policy,
            pressure: MemoryPressurePolicy(warning: reaction, critical: reaction), inFlight: inFlight, device: device)
    }

    @Test("the footprint ends the app at the request whose image takes it past the limit; memory starts empty after")
    func endsAtTheLimit() throws {
        // Footprints as each image is decoded: 15, 25, 35, 45 (critical: warned), 55 (past 45: ended); then key 0 again.
        let run = CacheSimulator.answers(Self.trace([0, 1, 2, 3, 4, 0]), Self.configuration())
        #expect(run.answers == [.origin, .origin, .origin, .origin, .lost, .origin])
        let device = try #require(run.result.device)
        #expect(device.processEnds == 1 && device.lostRequests == 1)
        #expect(device.interruptedSessions == 1 && device.sessions == 1)
        #expect(device.warnings == 1)  // one climb, straight to critical
        #expect(device.peakFootprintBytes == 46)  // capped just past the limit
        #expect(device.usageSeconds == 5)
        #expect(device.processEndsPerHour == 720)

        // Without the phone nothing ends and the last request hits memory.
        let roomy = CacheSimulator.answers(Self.trace([0, 1, 2, 3, 4, 0]), Self.configuration(device: nil))
        #expect(roomy.answers.last == .memory && roomy.result.device == nil)
    }

    @Test("a reaction that frees memory keeps the app alive, and a later climb warns again")
    func warningsThatFreeMemory() throws {
        let run = CacheSimulator.answers(Self.trace([0, 1, 2, 3, 4, 5, 6, 7]), Self.configuration(reaction: .purgeAll))
        #expect(!run.answers.contains(.lost))
        let device = try #require(run.result.device)
        #expect(device.processEnds == 0)
        // 45 at key 3: purged; then 15, 25, 35, 45 again at key 7.
        #expect(device.warnings == 2 && run.result.warnings.count == 2)
    }

    @Test("NSCache empties itself when the system warns, whatever the app's reaction; an LRU keeps what the reaction keeps")
    func nsCacheUnderSystemPressure() {
        // Key 3 takes the footprint to 45 (a critical warning), the app ignores it; then keys 0..3 again.
        let keys: [Slot] = [0, 1, 2, 3, 0, 1, 2, 3]
        let lru = CacheSimulator.answers(Self.trace(keys), Self.configuration(.lru))
        let nsCache = CacheSimulator.answers(Self.trace(keys), Self.configuration(.nsCache))
        #expect(Array(lru.answers.suffix(4)) == [.memory, .memory, .memory, .memory])
        #expect(Array(nsCache.answers.suffix(4)) == [.origin, .origin, .origin, .origin])
        // The system's warnings reach it through the trace too, once a phone stands for the system.
        let traceWarned = Self.trace([0, 1, 0], warningsBefore: [2])
        #expect(CacheSimulator.answers(traceWarned, Self.configuration(.nsCache)).answers.last == .origin)
        #expect(CacheSimulator.answers(traceWarned, Self.configuration(.nsCache, device: nil)).answers.last == .memory)
    }

    @Test("requests in flight when the app ends are lost with it and leave nothing behind")
    func inFlightRequestsAreLost() throws {
        // Four in flight: the first image lands as the fourth request comes, while the other two
        // decode, 5 + 30 = 35, past this phone's 30: all three are lost, and the next request for
        // key 0 goes to the origin.
        let small = DeviceModel(name: "small", limitBytes: 30, baselineBytes: 5, warningBytes: 20, criticalBytes: 25)
        let run = CacheSimulator.answers(Self.trace([0, 1, 2, 3, 0]), Self.configuration(inFlight: 4, device: small))
        let device = try #require(run.result.device)
        #expect(Array(run.answers.prefix(3)) == [.lost, .lost, .lost])
        #expect(device.lostRequests >= 3 && device.processEnds >= 1)
        #expect(run.answers[4] != .memory)
        #expect(run.result.hits == 0)
    }

    @Test("the footprint account: a warning per climb, a critical one past it, an end past the limit, nothing while it stays up")
    func footprintAccount() {
        var footprint = DeviceFootprint(Self.phone)
        #expect(footprint.decoded(held: 0, decoding: 30) == .none)
        footprint.settled(held: 30)
        #expect(footprint.decoded(held: 30, decoding: 5) == .warn(.warning))   // 40
        footprint.settled(held: 35)
        #expect(footprint.decoded(held: 35, decoding: 1) == .none)             // 41: still warned
        footprint.settled(held: 36)
        #expect(footprint.decoded(held: 36, decoding: 3) == .warn(.critical))  // 44
        footprint.settled(held: 0)
        #expect(footprint.decoded(held: 0, decoding: 36) == .warn(.warning))   // fell back, climbs again
        #expect(footprint.decoded(held: 30, decoding: 11) == .end)             // 46
        #expect(footprint.peakBytes == 46)
    }
}
