import Testing
@testable import CacheSimulation
@testable import ImagePipeline

@Suite("Network profiles")
struct NetworkProfileTests {
    @Test("presets by name, each with its source; the custom form read field by field")
    func parsing() throws {
        let slow = try NetworkProfile(parsing: "Slow-4G")
        #expect(slow.rttMilliseconds == 150 && slow.downlinkBitsPerSecond == 1_638_400 && slow.source.contains("Lighthouse"))
        #expect(Set(NetworkProfile.presets.map(\.name)).count == NetworkProfile.presets.count)
        #expect(NetworkProfile.presets.allSatisfy { !$0.source.isEmpty && $0.rttMilliseconds > 0 && $0.downlinkBitsPerSecond > 0 })

        let custom = try NetworkProfile(parsing: "rtt=80ms,down=2.5mbit,loss=0.02,connections=h2")
        #expect(custom.rttMilliseconds == 80 && custom.downlinkBitsPerSecond == 2_500_000 && custom.loss == 0.02)
        #expect(custom.connections == .multiplexed)
        #expect(custom.description == "custom (80 ms, 2.5 Mbit/s, 2 % loss, http/2)")
        #expect(try NetworkProfile(parsing: "down=700k,rtt=300").connections == .perHost(4))
        #expect(try NetworkProfile(parsing: "rtt=10,down=1000000,connections=2").connections == .perHost(2))
    }

    @Test("a bad network names what is wrong", arguments: [
        ("5g", NetworkProfileError.unknownPreset("5g")),
        ("rtt=100", .missing("down")),
        ("down=1m", .missing("rtt")),
        ("rtt=100,rtt=50,down=1m", .repeated("rtt")),
        ("rtt=100,down=1m,jitter=5", .unknownField("jitter")),
        ("rtt=-1,down=1m", .outOfRange(field: "rtt", value: "-1", range: "0 to 60000 ms")),
        ("rtt=100,down=fast", .outOfRange(field: "down", value: "fast", range: "1kbit to 100gbit a second")),
        ("rtt=100,down=1m,loss=0.7", .outOfRange(field: "loss", value: "0.7", range: "0 up to 0.5 (a share of packets)")),
        ("rtt=100,down=1m,connections=0", .outOfRange(field: "connections", value: "0", range: "1 to 64 per host, or h2")),
        ("rtt=100,,down=1m", .malformed("")),
    ])
    func refusals(_ text: String, _ error: NetworkProfileError) {
        #expect(throws: error) { try NetworkProfile(parsing: text) }
    }
}

@Suite("The simulator's network link")
struct NetworkLinkTests {
    static let ms: UInt64 = 1_000_000
    /// 100 ms round trips, 8 Mbit/s: a megabyte takes one second on its own.
    static func profile(_ connections: NetworkProfile.ConnectionPooling = .perHost(6), loss: Double = 0) -> NetworkProfile {
        NetworkProfile(name: "test", rttMilliseconds: 100, downlinkBitsPerSecond: 8e6, loss: loss, connections: connections, source: "test")
    }

    static func run(_ profile: NetworkProfile, _ transfers: [(id: Int, host: Int32, bytes: Int, at: UInt64)]) -> [Int: UInt64] {
        var link = NetworkLink(profile)
        var ended: [Int: UInt64] = [:]
        for transfer in transfers {
            link.advance(to: transfer.at) { ended[$0] = $1 }
            link.start(transfer.id, host: transfer.host, bytes: transfer.bytes, at: transfer.at)
        }
        while let end = link.nextEnd(by: .max) { ended[end.id] = end.at }
        return ended
    }

    @Test("a new connection costs two round trips, the request one, the bytes their share of the downlink")
    func oneAndTwo() {
        #expect(Self.run(Self.profile(), [(1, 0, 1_000_000, 0)]) == [1: 1_300 * Self.ms])
        // Two at once share the downlink: each at half the rate.
        #expect(Self.run(Self.profile(), [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 0)]) == [1: 2_300 * Self.ms, 2: 2_300 * Self.ms])
        // The second starts flowing later and runs alone at the end.
        let staggered = Self.run(Self.profile(), [(1, 0, 1_000_000, 0), (2, 1, 1_000_000, 500 * Self.ms)])
        #expect(staggered == [1: 1_800 * Self.ms, 2: 2_300 * Self.ms])
    }

    @Test("a transfer ends when it would have, however many steps the clock took to get there")
    func steps() {
        let ms = Self.ms
        let transfers: [(id: Int, host: Int32, bytes: Int, at: UInt64)] = [(1, 0, 300_000, 0), (2, 0, 100_000, 150 * ms), (3, 1, 50_000, 420 * ms)]
        let whole = Self.run(Self.profile(), transfers)
        var link = NetworkLink(Self.profile())
        var ended: [Int: UInt64] = [:]
        for transfer in transfers {
            link.advance(to: transfer.at) { ended[$0] = $1 }
            link.start(transfer.id, host: transfer.host, bytes: transfer.bytes, at: transfer.at)
        }
        var time = transfers.last!.at
        while link.isBusy {
            time += 7 * ms / 3
            link.advance(to: time) { ended[$0] = $1 }
        }
        #expect(ended == whole && whole.count == 3)
        // 1 flows alone from 300 ms and shares with 2 from 450 ms until 2 ends at 650, then ends
        // alone before 3's first byte at 720 ms.
        #expect(whole == [1: 700 * ms, 2: 650 * ms, 3: 770 * ms])
    }

    @Test("a later transfer shares the downlink from its first byte, then runs alone")
    func overlap() {
        let ms = Self.ms
        #expect(Self.run(Self.profile(), [(1, 0, 100_000, 0), (2, 0, 100_000, 60 * ms)]) == [1: 440 * ms, 2: 500 * ms])
    }

    @Test("one connection per host: the next waits for it and reuses it; an idle one closes after a minute")
    func connectionLimit() {
        let one = Self.profile(.perHost(1))
        #expect(Self.run(one, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 0)]) == [1: 1_300 * Self.ms, 2: 2_400 * Self.ms])
        // Another host is another connection.
        #expect(Self.run(one, [(1, 0, 1_000_000, 0), (2, 7, 1_000_000, 0)]) == [1: 2_300 * Self.ms, 2: 2_300 * Self.ms])
        #expect(Self.run(one, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 2_000 * Self.ms)]) == [1: 1_300 * Self.ms, 2: 3_100 * Self.ms])
        #expect(Self.run(one, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 100_000 * Self.ms)]) == [1: 1_300 * Self.ms, 2: 101_300 * Self.ms])
    }

    @Test("the request timeout: a transfer queued for a connection, or connected too late for its first byte, fails at its deadline; a late one's connection closes")
    func requestTimeout() {
        let ms = Self.ms
        func run(_ connections: NetworkProfile.ConnectionPooling, timeout: Duration, _ transfers: [(id: Int, bytes: Int, at: UInt64)]) -> [Int: (at: UInt64, failed: Bool)] {
            var link = NetworkLink(Self.profile(connections), timeout: timeout)
            var ended: [Int: (at: UInt64, failed: Bool)] = [:]
            for transfer in transfers {
                while let end = link.nextEnd(by: transfer.at) { ended[end.id] = (end.at, end.failed) }
                link.start(transfer.id, host: 0, bytes: transfer.bytes, at: transfer.at)
            }
            while let end = link.nextEnd(by: .max) { ended[end.id] = (end.at, end.failed) }
            #expect(!link.isBusy)
            return ended
        }
        // One connection: 1 has its first byte at 300 ms and ends at 1,300. 2 and 3 queue behind
        // it; at a 1 s timeout 2 (asked at 0) fails at 1,000 ms, still queued, and 3 (asked at
        // 500 ms) gets the connection at 1,300 and its first byte at 1,400, before its deadline.
        let queued = run(.perHost(1), timeout: .seconds(1), [(1, 1_000_000, 0), (2, 1_000_000, 0), (3, 100_000, 500 * ms)])
        #expect(queued[1]! == (1_300 * ms, false) && queued[2]! == (1_000 * ms, true) && queued[3]! == (1_500 * ms, false))
        // At 250 ms the first transfer's first byte (300 ms: two round trips to connect, one to
        // ask) is too late: it fails at 250 ms and closes its connection, so 2, queued behind it,
        // opens another at 250 ms, whose first byte (550 ms) is too late for its own deadline (350).
        let late = run(.perHost(1), timeout: .milliseconds(250), [(1, 100_000, 0), (2, 100_000, 100 * ms)])
        #expect(late[1]! == (250 * ms, true) && late[2]! == (350 * ms, true))
        // Over HTTP/2 a late stream stops alone: the next transfer, asked once the handshake is
        // done, takes the open connection and makes its deadline.
        let h2 = run(.multiplexed, timeout: .milliseconds(250), [(1, 100_000, 0), (2, 100_000, 200 * ms)])
        #expect(h2[1]! == (250 * ms, true) && h2[2]! == (400 * ms, false))
        // With no timeout nothing fails, and the same transfers end as they always did.
        let none = Self.run(Self.profile(.perHost(1)), [(1, 1_000_000, 0), (2, 1_000_000, 0)].map { ($0.0, 0, $0.1, $0.2) })
        #expect(none == [1: 1_300 * ms, 2: 2_400 * ms])
    }

    @Test("a recording's own account of its connections: one it opened pays the handshake beside an idle one; one it reused pays none")
    func recordedConnections() {
        let ms = Self.ms
        func run(_ connected: Bool?, afterIdle: Bool) -> UInt64? {
            var link = NetworkLink(Self.profile())
            var ended: [Int: UInt64] = [:]
            if afterIdle {
                link.start(1, host: 0, bytes: 100_000, at: 0)
                link.advance(to: 1_000 * ms) { ended[$0] = $1 }
            }
            link.start(2, host: 0, bytes: 1_000_000, at: 1_000 * ms, connected: connected)
            while let end = link.nextEnd(by: .max) { ended[end.id] = end.at }
            return ended[2]
        }
        // Beside an idle connection: reused unless the recording opened one.
        #expect(run(nil, afterIdle: true) == 2_100 * ms && run(false, afterIdle: true) == 2_100 * ms)
        #expect(run(true, afterIdle: true) == 2_300 * ms)
        // With none open: a new connection unless the recording sent it on one already open.
        #expect(run(nil, afterIdle: false) == 2_300 * ms && run(true, afterIdle: false) == 2_300 * ms)
        #expect(run(false, afterIdle: false) == 2_100 * ms)
    }

    @Test("HTTP/2: one handshake for the host, every transfer on it at once")
    func multiplexed() {
        let h2 = Self.profile(.multiplexed)
        let ended = Self.run(h2, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 0), (3, 0, 1_000_000, 100 * Self.ms)])
        // All three flow from 300 ms (the third waits for the handshake), a third of the rate each.
        #expect(ended == [1: 3_300 * Self.ms, 2: 3_300 * Self.ms, 3: 3_300 * Self.ms])
        // The connection is kept a minute after its last transfer, then made again.
        #expect(Self.run(h2, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 61_000 * Self.ms)]) == [1: 1_300 * Self.ms, 2: 62_100 * Self.ms])
        #expect(Self.run(h2, [(1, 0, 1_000_000, 0), (2, 0, 1_000_000, 61_400 * Self.ms)]) == [1: 1_300 * Self.ms, 2: 62_700 * Self.ms])
    }

    @Test("loss caps what one connection carries (Mathis et al.)")
    func loss() {
        let lossy = Self.profile(loss: 0.01)
        // 1,460 bytes a round trip × √1.5 / √0.01: 178,807 bytes a second, far under the 1 MB/s link.
        let ended = Self.run(lossy, [(1, 0, 1_000_000, 0)])
        let expected = 300 * Self.ms + UInt64((1_000_000 / (1_460 / 100_000_000.0 * 1.5.squareRoot() / 0.1)).rounded(.up))
        #expect(ended[1] == expected)
    }
}

@Suite("The simulator's clock")
struct RequestClockTests {
    static let network = NetworkProfile(name: "test", rttMilliseconds: 100, downlinkBitsPerSecond: 8e6, source: "test")

    /// A time as the clock reports it: whole microseconds, in milliseconds.
    static func recorded(_ nanoseconds: UInt64) -> Double { Double(nanoseconds / 1_000) / 1000 }

    @Test("origin: handshake, request, bytes and decode; a repeat in flight waits for it; a later repeat is a hit that takes no time")
    func simulated() throws {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        let ms: UInt64 = 1_000_000
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 50 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 1, cost: 30_000, size: 50_000, time: 60 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 5_000 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        var configuration = SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, inFlight: 4, network: Self.network)
        let result = CacheSimulator.run(trace, configuration)
        let time = try #require(result.timeToImage)
        let costs = DeviceCosts.thisMachine
        let decode = costs.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 30_000)
        // Alone on a new connection the first would take 300 ms + 100 ms of bytes; the second URL's
        // transfer (another connection, from 360 ms) shares the downlink with it from then on.
        let first = 300 * ms + 60 * ms + 40 * ms * 2 + decode
        #expect(time.byTier["joined"]?.count == 1 && time.byTier["joined"]?.p50 == Self.recorded(first - 50 * ms))
        #expect(time.byTier["memory"]?.count == 1 && time.byTier["memory"]?.p50 == 0)
        // The second: 40 KB by the time the first ends, the last 10 KB alone; timed from its own arrival.
        let second = 450 * ms + costs.decodeNanoseconds(encodedBytes: 50_000, decodedBytes: 30_000) - 60 * ms
        #expect(time.byTier["origin"]?.count == 2 && time.byTier["origin"]?.p50 == Self.recorded(second))
        #expect(time.byTier["origin"]?.p99 == Self.recorded(first))
        #expect(time.overall.count == 4)
        #expect(time.networkBytes == 150_000)
        #expect(time.network == "test")

        #expect(time.neverShown == 0)

        // The same trace and settings, the same times; no network, no clock.
        #expect(CacheSimulator.run(trace, configuration).timeToImage == time)
        configuration.network = nil
        #expect(CacheSimulator.run(trace, configuration).timeToImage == nil)
    }

    @Test("a relaunch lets the launch's images finish, as the live replay does; the next launch connects anew")
    func relaunch() throws {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        let ms: UInt64 = 1_000_000
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.appendReset(newDevice: false)
        trace.append(key: 1, cost: 30_000, size: 100_000, time: 200 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        let result = CacheSimulator.run(trace, SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, network: Self.network))
        let time = try #require(result.timeToImage)
        #expect(time.neverShown == 0 && time.overall.count == 2 && time.networkBytes == 200_000)
        let decode = DeviceCosts.thisMachine.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 30_000)
        // Each on a new connection: three round trips and the bytes, then the decode; the second
        // starts once the first launch's image is ready, and is timed from its trace time.
        #expect(time.overall.p50 == Self.recorded(400 * ms + decode))
        #expect(time.overall.p99 == Self.recorded(400 * ms + decode - 200 * ms + 400 * ms + decode))
    }

    @Test("on the clock, time decides: a repeat joins only while its thumbnail is on the way, an original is on disk from its transfer's end, and the app's limit holds requests back")
    func decisionsByTime() throws {
        let ms: UInt64 = 1_000_000
        var trace = DetailedSimulationTests.emptyTrace(keys: 4)
        // URL 0 at one size (key 0) and two others (keys 2, 3); URL 1 (key 1).
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 2, cost: 20_000, size: 100_000, time: 350 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 380 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 3, cost: 10_000, size: 100_000, time: 401 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 500 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 1, cost: 30_000, size: 100_000, time: 501 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        func run(_ inFlight: Int) -> CacheSimulator.Answered {
            CacheSimulator.answers(trace, SimulationConfiguration(
                limits: unitLimits(1 << 30), policy: .lru, disk: .init(byteLimit: 1 << 30), inFlight: inFlight, network: Self.network))
        }
        // URL 0's transfer ends at 400 ms: key 2 asks before and shares it, the repeat of key 0
        // joins its flight, key 3 finds the original on disk a millisecond after; by 500 ms key 0
        // is decoded and in memory. No limit on requests in flight.
        let free = run(0)
        #expect(free.answers == [.origin, .origin, .joined, .disk, .memory, .origin])
        #expect(free.sharedDownloads == 1)
        let decode = DeviceCosts.thisMachine.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 30_000)
        let joined = try #require(free.result.timeToImage?.byTier["joined"])
        #expect(joined.count == 1 && joined.p50 == Self.recorded(400 * ms + decode - 380 * ms))
        // One request at a time: each starts once the one before has its image, so nothing joins
        // or shares; key 2 starts after key 0's original is on disk and reads it.
        let one = run(1)
        #expect(one.answers == [.origin, .disk, .memory, .disk, .memory, .origin])
        #expect(one.sharedDownloads == 0)
        // URL 1 waits for the keys before it, then reuses the first connection (kept alive): one
        // round trip and the bytes, timed from its trace time; the wait counts.
        let origin = try #require(one.result.timeToImage?.byTier["origin"])
        let memory = try #require(one.result.timeToImage?.byTier["memory"])
        let disk = DeviceCosts.thisMachine.diskReadNanoseconds(bytes: 100_000)
        let secondDecode = DeviceCosts.thisMachine.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 20_000)
        // Key 0 ready at 400 ms + its decode; key 2 reads and decodes after it; key 0's repeat
        // (asked at 380 ms) is a hit then, having waited; key 3 is ready before 500 ms, when key 0
        // is a hit at once, and URL 1 starts at its own time.
        let secondReady = 400 * ms + decode + disk + secondDecode
        #expect(memory.count == 2 && memory.p50 == 0 && memory.p99 == Self.recorded(secondReady - 380 * ms))
        #expect(origin.count == 2 && origin.p50 == Self.recorded(200 * ms + decode) && origin.p99 == Self.recorded(400 * ms + decode))

        // Request by request, the same times (microseconds), each where its answer says.
        // Key 3 starts at its trace time or when key 2 has its image, whichever is later.
        let thirdReady = max(secondReady, 401 * ms) + disk + DeviceCosts.thisMachine.decodeNanoseconds(encodedBytes: 100_000, decodedBytes: 10_000)
        #expect(one.times.map { Double($0) / 1000 } == [
            Self.recorded(400 * ms + decode), Self.recorded(secondReady - 350 * ms), Self.recorded(secondReady - 380 * ms),
            Self.recorded(thirdReady - 401 * ms), 0, Self.recorded(200 * ms + decode),
        ])
        // A run that records no answers keeps no times by request; nor does one without a clock.
        var plain = SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, disk: .init(byteLimit: 1 << 30), inFlight: 1)
        #expect(CacheSimulator.answers(trace, plain).times.isEmpty)
        plain.network = Self.network
        #expect(CacheSimulator.answers(trace, plain).times == one.times)
    }

    @Test("a decode's time grows by the device's cost per pixel loaded, resized and between the resize's passes, and by libvips' own part, from the origin and from a stored original")
    func decodeWork() throws {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        let work = DecodeWork(loadedPixels: 2_000_000, resizedPixels: 500_000, betweenPassesPixels: 250_000, throughLibvips: true)
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, decodeWork: work, content: 0, url: 0))
        trace.appendReset(newDevice: false)
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 10_000_000_000, detail: .init(diskKey: 0, decodeWork: work, content: 0, url: 0))
        func times(perLoaded: Double, perResized: Double, perBetween: Double, libvips: Double) -> [UInt32] {
            var configuration = SimulationConfiguration(
                limits: unitLimits(1 << 30), policy: .lru, disk: .init(byteLimit: 1 << 30), network: Self.network)
            configuration.deviceCosts.decodeNanosecondsPerLoadedPixel = perLoaded
            configuration.deviceCosts.decodeNanosecondsPerResizedPixel = perResized
            configuration.deviceCosts.decodeNanosecondsPerBetweenPassesPixel = perBetween
            configuration.deviceCosts.decodeLibvipsFixedNanoseconds = libvips
            return CacheSimulator.answers(trace, configuration).times
        }
        let without = times(perLoaded: 0, perResized: 0, perBetween: 0, libvips: 0)
        let with = times(perLoaded: 5, perResized: 20, perBetween: 8, libvips: 3_000_000)
        #expect(CacheSimulator.answers(trace, SimulationConfiguration(
            limits: unitLimits(1 << 30), policy: .lru, disk: .init(byteLimit: 1 << 30), network: Self.network)).answers == [.origin, .disk])
        // 2 MP loaded at 5 ns, 0.5 MP resized at 20 ns, 0.25 MP between passes at 8 ns, 3 ms through libvips: 25 ms more, each way.
        #expect(with.count == 2 && zip(with, without).allSatisfy { Int($0) - Int($1) == 25_000 }, "\(with) against \(without)")
    }

    @Test("a cancelled request has no time to image; the others keep theirs")
    func untimed() throws {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0, outcome: .cancelled))
        trace.append(key: 1, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 1, content: 1, url: 1))
        let answered = CacheSimulator.answers(trace, SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, network: Self.network))
        #expect(answered.answers == [.cancelled, .origin])
        #expect(answered.times.count == 2 && answered.times[0] == TimeToImage.untimed && answered.times[1] != TimeToImage.untimed)
        #expect(Double(answered.times[1]) / 1000 == answered.result.timeToImage?.overall.p50)
    }

    @Test("a request the app cancelled, or made offline, that shares a transfer on its way is answered with it: its own download never starts, as live")
    func sharedTransferOutlivesCancel() throws {
        let ms: UInt64 = 1_000_000
        var trace = DetailedSimulationTests.emptyTrace(keys: 4)
        // URL 0 at one size (key 0), then two other sizes of it while its transfer runs (keys 2
        // and 3), one cancelled, one offline; URL 1 (key 1) cancelled, with nothing to share.
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 2, cost: 20_000, size: 100_000, time: 10 * ms, detail: .init(diskKey: 0, content: 0, url: 0, outcome: .cancelled))
        trace.append(key: 3, cost: 10_000, size: 100_000, time: 20 * ms, detail: .init(diskKey: 0, content: 0, url: 0, outcome: .offline))
        trace.append(key: 1, cost: 30_000, size: 100_000, time: 30 * ms, detail: .init(diskKey: 1, content: 1, url: 1, outcome: .cancelled))
        let answered = CacheSimulator.answers(trace, SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, network: Self.network))
        #expect(answered.answers == [.origin, .origin, .origin, .cancelled])
        #expect(answered.sharedDownloads == 2 && answered.result.cancelledTransfers == 1 && answered.result.offlineMisses == 0)
        #expect(answered.times[0 ..< 3].allSatisfy { $0 != TimeToImage.untimed } && answered.times[3] == TimeToImage.untimed)
        #expect(answered.result.timeToImage?.networkBytes == 100_000)
    }

    @Test("a download whose response has not begun by the request timeout fails, and with it those that joined it or share it: not shown, nothing stored, as live")
    func requestTimeout() throws {
        let ms: UInt64 = 1_000_000
        var trace = DetailedSimulationTests.emptyTrace(keys: 3)
        // One connection: URL 0 (key 0) has it from 0 to 1,300 ms; URL 1 (key 1) waits behind it,
        // joined by a repeat and shared by another size of it (key 2); at a 1 s timeout all three
        // fail at 1,000 ms. Key 1 asked again at 5 s is downloaded again.
        trace.append(key: 0, cost: 30_000, size: 1_000_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 1, cost: 30_000, size: 1_000_000, time: 0, detail: .init(diskKey: 1, content: 1, url: 1))
        trace.append(key: 1, cost: 30_000, size: 1_000_000, time: 10 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        trace.append(key: 2, cost: 20_000, size: 1_000_000, time: 20 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        trace.append(key: 1, cost: 30_000, size: 1_000_000, time: 5_000 * ms, detail: .init(diskKey: 1, content: 1, url: 1))
        func run(_ timeout: Duration?) -> CacheSimulator.Answered {
            var configuration = SimulationConfiguration(
                limits: unitLimits(1 << 30), policy: .lru,
                network: NetworkProfile(name: "test", rttMilliseconds: 100, downlinkBitsPerSecond: 8e6, connections: .perHost(1), source: "test"))
            configuration.requestTimeout = timeout
            return CacheSimulator.answers(trace, configuration)
        }
        let timedOut = run(.seconds(1))
        #expect(timedOut.answers == [.origin, .offline, .offline, .offline, .origin])
        #expect(timedOut.result.hits == 0 && timedOut.result.offlineMisses == 3 && timedOut.result.unservedBytes == 3_000_000)
        #expect(timedOut.result.timeToImage?.timedOut == 3 && timedOut.result.timeToImage?.networkBytes == 2_000_000)
        #expect(timedOut.times[1 ..< 4].allSatisfy { $0 == TimeToImage.untimed } && timedOut.times[4] != TimeToImage.untimed)
        // Without a timeout URL 1 waits its turn: the repeat joins it, the other size shares it, and the last is a hit.
        let patient = run(nil)
        #expect(patient.answers == [.origin, .origin, .joined, .origin, .memory])
        #expect(patient.result.timeToImage?.timedOut == 0 && patient.result.offlineMisses == 0 && patient.sharedDownloads == 1)
    }

    @Test("back to back, as replay --speed 0 sends them: a request arrives once the app has a place, whatever its trace time")
    func backToBack() throws {
        let ms: UInt64 = 1_000_000
        var trace = DetailedSimulationTests.emptyTrace(keys: 1)
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 0, detail: .init(diskKey: 0, content: 0, url: 0))
        trace.append(key: 0, cost: 30_000, size: 100_000, time: 10_000 * ms, detail: .init(diskKey: 0, content: 0, url: 0))
        func run(_ inFlight: Int, _ arrivals: SimulationConfiguration.Arrivals) -> CacheSimulator.Answered {
            var configuration = SimulationConfiguration(limits: unitLimits(1 << 30), policy: .lru, inFlight: inFlight, network: Self.network)
            configuration.arrivals = arrivals
            return CacheSimulator.answers(trace, configuration)
        }
        #expect(run(2, .recorded).answers == [.origin, .memory])
        // Two places: the repeat arrives at once and joins the first, waiting as long as it.
        let joined = run(2, .backToBack)
        #expect(joined.answers == [.origin, .joined])
        let time = try #require(joined.result.timeToImage)
        #expect(time.byTier["joined"]?.p50 == time.byTier["origin"]?.p50)
        // One place: it arrives when the first is ready, and is a hit at once.
        let one = run(1, .backToBack)
        #expect(one.answers == [.origin, .memory] && one.result.timeToImage?.byTier["memory"]?.p50 == 0)
    }
}
