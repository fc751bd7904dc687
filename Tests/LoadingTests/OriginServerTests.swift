import Foundation
import ImagePipeline
import OriginServer
import Testing

/// A started origin with its own store, stopped by the caller.
extension HTTPImageFetcher.Configuration {
    /// Generous timeouts: on two cores the suite's heavy tests share the CPU
    /// with the origin, which synthesises each image on first request.
    static let loopbackUnderLoad = Self(connectTimeout: .seconds(30), headTimeout: .seconds(30), readTimeout: .seconds(30))
}

func startOrigin(stall: Duration = .seconds(30)) async throws -> OriginServer {
    try await OriginServer.start(.init(
        storeDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("icb-origin-\(UUID().uuidString)").path,
        latency: LatencyModel(hosts: [
            "slow": .init(medianMilliseconds: 100, sigma: 0),
            "varied": .init(medianMilliseconds: 30, sigma: 1),
        ]),
        stall: stall))
}

@Suite("Origin server on loopback")
struct OriginServerTests {
    @Test("serves the described image, the same bytes every time, made once")
    func servesImages() async throws {
        let origin = try await startOrigin()
        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        let descriptor = ImageDescriptor(contentID: 7, width: 640, height: 360, format: .jpeg)
        let first = try await fetcher.fetch(origin.url(for: descriptor, originalURL: "https://cdn.example/7.jpg"))
        let second = try await fetcher.fetch(origin.url(for: descriptor))
        #expect(first.data == second.data)
        #expect(first.contentType == "image/jpeg")
        let header = try Thumbnailer().header(of: first.data)
        #expect((header.width, header.height, header.format) == (640, 360, .jpeg))
        #expect(origin.statistics.imagesSynthesised == 1)
        #expect(origin.statistics.requests == 2)
        try await fetcher.shutdown()
        await origin.stop()
    }

    @Test("a request queued behind a busy pool fails as noConnectionAvailable, not as a slow server")
    func poolExhausted() async throws {
        let origin = try await startOrigin()
        let fetcher = HTTPImageFetcher(.init(connectionsPerHost: 1, connectTimeout: .milliseconds(300)))
        let slow = origin.url(for: ImageDescriptor(contentID: 9, width: 1200, height: 900, format: .png), fault: .slowDrip)
        let holding = Task { try await fetcher.fetch(slow) }
        try await Task.sleep(for: .milliseconds(100))
        await #expect(throws: FetchError.noConnectionAvailable) {
            try await fetcher.fetch(origin.url(for: ImageDescriptor(contentID: 10, width: 64, height: 64, format: .jpeg)))
        }
        holding.cancel()
        _ = try? await holding.value
        try await fetcher.shutdown()
        await origin.stop()
    }
}
