import Foundation
import HTTPImageLoading
import ImagePipeline
@testable import OriginServer
import Testing

/// The origin paced to a phone's network: the waits it must add are lower bounds a sleep cannot
/// undercut, so these hold on any machine; how close live comes to the model is measured in
/// BENCHMARKS.md, not here.
@Suite("The origin on an emulated network")
struct EmulatedLinkTests {
    /// 40 ms round trips, 200 KB a second.
    static let link = EmulatedLink(roundTrip: .milliseconds(40), hostRoundTrips: ["far": .milliseconds(120)], downlinkBytesPerSecond: 200_000)

    /// The suite's generous timeouts: on two cores under the whole suite, a body's pieces can wait.
    static func fetcher(connectionsPerHost: Int) -> HTTPImageFetcher.Configuration {
        var configuration = HTTPImageFetcher.Configuration.loopbackUnderLoad
        configuration.connectionsPerHost = connectionsPerHost
        return configuration
    }

    static func seconds(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return (ContinuousClock.now - start).seconds
    }

    @Test("a new connection waits three round trips and its bytes; the next on it, one round trip and its bytes; a host of its own, its own round trip")
    func roundTrips() async throws {
        let origin = try await OriginServer.start(.init(link: Self.link, listeners: 2))
        let fetcher = HTTPImageFetcher(Self.fetcher(connectionsPerHost: 1))
        let image = ImageDescriptor(contentID: 3, width: 400, height: 300, format: .jpeg)
        try await origin.prepare([image])
        var bytes = 0
        let first = try await Self.seconds { bytes = try await fetcher.fetch(origin.url(for: image)).data.count }
        let transfer = Double(bytes) / 200_000
        #expect(first >= 0.120 + transfer, "took \(first) s for \(bytes) bytes")
        let again = try await Self.seconds { _ = try await fetcher.fetch(origin.url(for: image)) }
        #expect(again >= 0.040 + transfer, "took \(again) s")
        // The second listener is another host to the client: a new connection, at the far host's round trip.
        let far = try await Self.seconds { _ = try await fetcher.fetch(origin.url(for: image, host: "far", listener: 1)) }
        #expect(far >= 3 * 0.120 + transfer, "took \(far) s")
        #expect(origin.baseURLs.count == 2 && Set(origin.baseURLs).count == 2)
        try await fetcher.shutdown()
        await origin.stop()
    }

    @Test("the first byte's wait: three round trips on a connection not seen or idle past the timeout, one on a known one")
    func firstByte() {
        var link = Self.link
        link.idleTimeout = .zero
        let idleAtOnce = PacedDownlink(link), downlink = PacedDownlink(Self.link)
        #expect(downlink.firstByteDelay(connection: 50_001, host: nil) == .milliseconds(120))
        #expect(downlink.firstByteDelay(connection: 50_001, host: nil) == .milliseconds(40))
        #expect(downlink.firstByteDelay(connection: 50_002, host: "far") == .milliseconds(360))
        #expect(downlink.firstByteDelay(connection: 50_002, host: "far") == .milliseconds(120))
        #expect(downlink.firstByteDelay(connection: 50_003, host: "near") == .milliseconds(120))
        #expect(idleAtOnce.firstByteDelay(connection: 50_001, host: nil) == .milliseconds(120))
        #expect(idleAtOnce.firstByteDelay(connection: 50_001, host: nil) == .milliseconds(120))
        // About 1 ms of the downlink: LTE's 1.5 MB/s in 1,500-byte pieces; 512 B and 64 KB at the ends.
        #expect(EmulatedLink(roundTrip: .zero, downlinkBytesPerSecond: 1_500_000).pieceBytes == 1_500)
        #expect(Self.link.pieceBytes == 512 && EmulatedLink(roundTrip: .zero, downlinkBytesPerSecond: 1e9).pieceBytes == 65_536)
    }

    @Test("bodies in flight together share the one downlink")
    func sharedDownlink() async throws {
        let origin = try await OriginServer.start(.init(link: Self.link))
        let fetcher = HTTPImageFetcher(Self.fetcher(connectionsPerHost: 4))
        let images = (1...3).map { ImageDescriptor(contentID: UInt64($0), width: 400, height: 300, format: .jpeg) }
        try await origin.prepare(images)
        var total = 0
        let together = try await Self.seconds {
            total = try await withThrowingTaskGroup(of: Int.self) { group in
                for image in images { group.addTask { try await fetcher.fetch(origin.url(for: image)).data.count } }
                return try await group.reduce(0, +)
            }
        }
        #expect(together >= 0.120 + Double(total) / 200_000, "took \(together) s for \(total) bytes")
        #expect(origin.statistics.bytesSent == total)
        try await fetcher.shutdown()
        await origin.stop()
    }
}
