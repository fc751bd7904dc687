import Foundation
import ImagePipeline
import PipelineTesting
import Testing
@testable import CacheSimulation

@Suite("A recording's own network: fitted to its fetch times, each host at its own distance, checked fetch by fetch")
struct RecordedNetworkTests {
    let folder = TemporaryFolder("recorded-network")

    /// A recorded trace of `fetches` (url, start ms, bytes, fetch ms) in one session.
    func trace(_ fetches: [(url: String, start: Int, bytes: Int, milliseconds: Int)]) throws -> RecordedWorkload {
        var lines = [#"{"app":"test","generator":"test","modelVersion":"1","schema":1,"seed":0,"sessions":1}"#,
                     #"{"session":1,"t":0,"type":"session"}"#]
        for (id, fetch) in fetches.enumerated() {
            lines.append(#"{"image":{"boxHeight":10,"boxWidth":10,"bytes":\#(fetch.bytes),"content":\#(id + 1),"fetchMilliseconds":\#(fetch.milliseconds),"format":"jpeg","height":10,"id":\#(id + 1),"priority":"visible","scale":1,"url":"\#(fetch.url)","width":10},"t":\#(fetch.start),"type":"image"}"#)
        }
        return try RecordedWorkload.load(path: try folder.write("trace-\(UUID().uuidString).jsonl", lines.joined(separator: "\n") + "\n"))
    }

    @Test("median and Spearman's ρ: ranks with ties at their mean, a constant side 0")
    func statistics() {
        #expect(Statistics.median([3, 1, 2]) == 2 && Statistics.median([4, 1, 3, 2]) == 2.5 && Statistics.median([]).isNaN)
        #expect(Statistics.spearman([1, 2, 3, 4], [10, 20, 30, 400]) == 1)
        #expect(Statistics.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1)
        #expect(Statistics.ranks([5, 1, 5, 2]) == [3.5, 1, 3.5, 2])
        #expect(Statistics.spearman([1, 2, 3], [7, 7, 7]) == 0)
    }

    @Test("fetch times the link itself made under a known network: the fit finds each host's round trip and the downlink")
    func recoversAKnownNetwork() throws {
        defer { folder.remove() }
        // A CDN 10 ms away and an origin 150 ms away, 8 Mbit/s, fetches every 300 ms of sizes from 0.5 to 60 KB.
        let plan = (0..<40).map { index in
            (url: index % 3 == 0 ? "https://origin.example/\(index).jpg" : "https://cdn.example/\(index).jpg",
             start: index * 300, bytes: 500 + (index * 7_919) % 60_000, milliseconds: 1)
        }
        var truth = NetworkProfile(name: "truth", rttMilliseconds: 50, downlinkBitsPerSecond: 8e6, source: "test")
        truth.hostRoundTrips = ["cdn.example": 10, "origin.example": 150]
        let (fetches, hosts) = RecordedNetwork.fetches(of: try trace(plan))
        let times = RecordedNetwork.simulate(fetches, hostNames: hosts, on: truth)
        let recorded = try trace(zip(plan, times).map { ($0.url, $0.start, $0.bytes, Int($1.rounded())) })
        let fitted = try #require(RecordedNetwork.fit(recorded))
        let rtts = try #require(fitted.profile.hostRoundTrips)
        // Within one step of the search's grid (a factor of 1.2).
        for (host, rtt) in ["cdn.example": 10.0, "origin.example": 150.0] {
            let found = try #require(rtts[host])
            #expect(found / rtt < 1.21 && rtt / found < 1.21, "\(host): \(found) ms")
        }
        #expect(fitted.profile.downlinkBitsPerSecond / 8e6 < 1.45 && 8e6 / fitted.profile.downlinkBitsPerSecond < 1.45)
        #expect(fitted.agreement.fetches == 40 && fitted.agreement.mape < 0.1 && fitted.agreement.spearman > 0.95)
        // One round trip for every host fits worse: the hosts' distances are what the recording shows.
        var flat = fitted.profile
        flat.hostRoundTrips = nil
        #expect(try #require(RecordedNetwork.agreement(recorded, on: flat)).mape > fitted.agreement.mape * 2)
    }

    @Test("too few usable fetch times give no fit: times under a millisecond came from a cache")
    func tooFew() throws {
        defer { folder.remove() }
        let cached = try trace((0..<10).map { ("https://a.example/\($0).jpg", $0 * 10, 1_000, 0) })
        #expect(RecordedNetwork.fit(cached) == nil && RecordedNetwork.usableFetches(cached) == 0)
        let four = try trace((0..<4).map { ("https://a.example/\($0).jpg", $0 * 10, 1_000, 50) })
        #expect(RecordedNetwork.fit(four) == nil && four.recordedFetches.count == 4)
    }

    @Test("the clock times a trace's hosts at their own round trips")
    func clockUsesHostRoundTrips() throws {
        defer { folder.remove() }
        let workload = try trace([("https://near.example/a.jpg", 0, 1_000, 5), ("https://far.example/b.jpg", 10_000, 1_000, 5)])
        let simulationTrace = workload.simulationTrace(strategy: ReplayDefaults.keyStrategy)
        #expect(simulationTrace.hostNames == ["near.example", "far.example"])
        var network = NetworkProfile(name: "hosts", rttMilliseconds: 100, downlinkBitsPerSecond: 1e9, source: "test")
        let even = CacheSimulator.run(simulationTrace, SimulationConfiguration(limits: CacheLimits(costLimit: 1 << 30), policy: .lru, network: network))
        network.hostRoundTrips = ["near.example": 10, "far.example": 400]
        let apart = CacheSimulator.run(simulationTrace, SimulationConfiguration(limits: CacheLimits(costLimit: 1 << 30), policy: .lru, network: network))
        let evenTimes = try #require(even.timeToImage)
        let apartTimes = try #require(apart.timeToImage)
        // Three round trips each (a new connection and the request): 300 ms apiece at 100 ms; 30 and 1,200 ms apart.
        #expect(evenTimes.overall.p50 < apartTimes.overall.p95 && apartTimes.overall.p95 > 1_000)
    }
}
