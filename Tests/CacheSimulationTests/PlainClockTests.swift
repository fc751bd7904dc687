import Testing
@testable import CacheSimulation
@testable import ImagePipeline

@Suite("A plain trace on the simulator's clock")
struct PlainClockTests {
    static let ms: UInt64 = 1_000_000

    /// Keys 0 and 1, each request of 100 KB whose memory cost is its size.
    static func trace(_ requests: [(key: TraceKey, at: UInt64)]) -> SimulationTrace {
        var trace = SimulationTrace()
        _ = trace.addKey(fingerprint: 11)
        _ = trace.addKey(fingerprint: 12)
        for request in requests { trace.append(key: request.key, cost: 100_000, size: 100_000, time: request.at) }
        return trace
    }

    @Test("a miss downloads its bytes, then decodes them; a repeat in flight joins it; a later one is a memory hit; a disk hit reads, then decodes")
    func timed() throws {
        let ms = Self.ms
        let trace = Self.trace([(0, 0), (0, 50 * ms), (0, 5_000 * ms), (1, 6_000 * ms), (0, 8_000 * ms)])
        // Memory holds one object: key 1's landing pushes key 0 out to the disk alone.
        var configuration = SimulationConfiguration(
            limits: CacheLimits(costLimit: 150_000, maxEntryFraction: 1), policy: .lru, disk: .init(byteLimit: 1 << 30),
            network: RequestClockTests.network)
        let result = CacheSimulator.run(trace, configuration)
        let time = try #require(result.timeToImage)
        let costs = DeviceCosts.thisMachine
        // A plain trace has no pixels: its size is the encoded bytes, its cost the decoded ones.
        let decode = costs.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 100_000, work: .none)
        #expect(decode == UInt64(costs.decodeFixedNanoseconds + 100_000 * (costs.decodeNanosecondsPerEncodedByte + costs.decodeNanosecondsPerDecodedByte)))
        // Two round trips to connect, one for the request, 100 ms of bytes at 8 Mbit/s.
        let first = 400 * ms + decode
        // Six seconds on, the idle connection is reused: the request's round trip and the bytes.
        let second = 200 * ms + decode
        #expect(time.byTier["origin"]?.count == 2 && time.byTier["origin"]?.p50 == RequestClockTests.recorded(second))
        #expect(time.byTier["origin"]?.p99 == RequestClockTests.recorded(first))
        #expect(time.byTier["joined"]?.count == 1 && time.byTier["joined"]?.p50 == RequestClockTests.recorded(first - 50 * ms))
        #expect(time.byTier["memory"]?.count == 1 && time.byTier["memory"]?.p50 == 0)
        let read = costs.diskReadNanoseconds(bytes: 100_000) + decode
        #expect(time.byTier["disk"]?.count == 1 && time.byTier["disk"]?.p50 == RequestClockTests.recorded(read))
        #expect(time.overall.count == 5 && time.networkBytes == 200_000)
        #expect(result.hits == 2 && result.diskHits == 1 && result.requests == 5)

        // Without a network the repeat at 50 ms finds the object already in memory.
        configuration.network = nil
        let untimed = CacheSimulator.run(trace, configuration)
        #expect(untimed.timeToImage == nil && untimed.hits == 2 && untimed.diskHits == 1)
    }

    @Test("the app's limit holds a request back until a place frees; back to back, it arrives only then")
    func limit() throws {
        let trace = Self.trace([(0, 0), (1, 0)])
        func origin(_ arrivals: SimulationConfiguration.Arrivals) throws -> TimeToImage.Percentiles {
            var configuration = SimulationConfiguration(
                limits: CacheLimits(costLimit: 1 << 30), policy: .lru, inFlight: 1, network: RequestClockTests.network)
            configuration.arrivals = arrivals
            configuration.deviceCosts = DeviceCosts(
                decodeFixedNanoseconds: 0, decodeLibvipsFixedNanoseconds: 0, decodeNanosecondsPerEncodedByte: 0, decodeNanosecondsPerDecodedByte: 0)
            return try #require(CacheSimulator.run(trace, configuration).timeToImage?.byTier["origin"])
        }
        // The first takes 400 ms; the second is asked for at 0, starts when the first lands and
        // takes the idle connection: 200 ms more, timed from when it was asked for...
        let recorded = try origin(.recorded)
        #expect(recorded.count == 2 && recorded.p50 == 400 && recorded.p99 == 600)
        // ...or, back to back, from when it arrived.
        let backToBack = try origin(.backToBack)
        #expect(backToBack.p50 == 200 && backToBack.p99 == 400)
    }
}
