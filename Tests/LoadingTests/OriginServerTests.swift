import Foundation
import HTTPImageLoading
import ImagePipeline
import OriginServer
import PipelineTesting
import ImageSynthesis
import Testing

/// A started origin with its own store, stopped by the caller.
extension HTTPImageFetcher.Configuration {
    /// Generous timeouts: on two cores the suite's heavy tests share the CPU
    /// with the origin, which synthesises each image on first request.
    static let loopbackUnderLoad = Self(connectTimeout: .seconds(30), requestTimeout: .seconds(30), readTimeout: .seconds(30))
}

func startOrigin(stall: Duration = .seconds(30)) async throws -> OriginServer {
    try await OriginServer.start(.init(
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

    @Test("two origins share one store: each image is made once, a damaged file is made again, the limit holds")
    func sharedStore() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("icb-shared-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let images = (1...6).map { ImageDescriptor(contentID: UInt64($0), width: 300, height: 200, format: .jpeg) }
        let expected = try images.map { try ImageSynthesizer.image(SynthesisSpec(seed: $0.contentID, width: 300, height: 200, format: EncodedFormat(.jpeg, quality: $0.quality))) }
        let limit = expected.reduce(0) { $0 + $1.count } * 10
        // An earlier version's single-process store in the same folder is removed.
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let legacy = [".lock", ".recency", String(repeating: "ab", count: 32), String(repeating: "0f", count: 32) + ".7.tmp"]
        for name in legacy { _ = FileManager.default.createFile(atPath: root + "/" + name, contents: Data("old".utf8)) }
        let first = try await OriginServer.start(.init(storeDirectory: root, storeByteLimit: limit))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root) == ["synthesis-\(ImageSynthesizer.version)"])
        let second = try await OriginServer.start(.init(storeDirectory: root, storeByteLimit: limit))
        let preparing = [Task { try await first.prepare(images) }, Task { try await second.prepare(images.reversed()) }]
        for task in preparing { try await task.value }
        let folder = root + "/synthesis-\(ImageSynthesizer.version)"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        #expect(files.count == images.count, "\(files)")

        // Damage one file: it is made again, never served.
        let damaged = try #require(files.first)
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/" + damaged))
        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        for (image, bytes) in zip(images, expected) {
            #expect(try await fetcher.fetch(second.url(for: image)).data == bytes)
        }
        #expect(second.statistics.imagesSynthesised == 1)
        try await fetcher.shutdown()
        await first.stop()
        await second.stop()

        // A store over its limit is trimmed to it, least recently read first, when next opened.
        let small = try await OriginServer.start(.init(storeDirectory: root, storeByteLimit: expected[0].count * 3))
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        let bytes = try left.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: folder + "/" + $1)[.size] as! Int) }
        #expect(!left.isEmpty && left.count < images.count && bytes <= expected[0].count * 3, "\(left.count) files, \(bytes) bytes")
        await small.stop()
    }

    @Test("without a store directory, a server makes one of its own and removes it when it stops")
    func ownStore() async throws {
        let first = try await OriginServer.start(), second = try await OriginServer.start()
        #expect(first.storeDirectory != second.storeDirectory)
        let fetcher = HTTPImageFetcher(.loopbackUnderLoad)
        _ = try await fetcher.fetch(first.url(for: ImageDescriptor(contentID: 1, width: 64, height: 64, format: .jpeg)))
        try await fetcher.shutdown()
        let made = FileManager.default.subpaths(atPath: first.storeDirectory) ?? []
        #expect(made.contains { $0.hasSuffix(".jpeg") }, "the picture it made is in its store: \(made)")
        await first.stop()
        await second.stop()
        #expect(!FileManager.default.fileExists(atPath: first.storeDirectory))
        #expect(!FileManager.default.fileExists(atPath: second.storeDirectory))
    }

    @Test("a request queued behind a busy pool fails as noConnectionAvailable, not as a slow server")
    func poolExhausted() async throws {
        let origin = try await startOrigin(stall: .seconds(120))
        // The pool's timer runs on an event loop that other tests' origins keep busy (in a full run
        // it fired seconds late), so nothing else may end first: the held request's read and head
        // timeouts outlast its stall, and the queued one's head timeout outlasts any such delay.
        let fetcher = HTTPImageFetcher(.init(
            connectionsPerHost: 1, connectTimeout: .milliseconds(300), requestTimeout: .seconds(600), readTimeout: .seconds(600)))
        let stalled = origin.url(for: ImageDescriptor(contentID: 9, width: 64, height: 64, format: .png), fault: .stall)
        var holding = Task { try await fetcher.fetch(stalled) }
        // The pool gives a connection 300 ms to open. Under ThreadSanitizer on a busy machine one took
        // longer, and the held request failed before it went out: it is sent again until the origin has it.
        var attempts = 1
        while await !eventually(within: .seconds(10), { origin.statistics.requests >= 1 }) {
            holding.cancel()
            _ = try? await holding.value
            attempts += 1
            try #require(attempts <= 10, "the held request never reached the origin")
            holding = Task { try await fetcher.fetch(stalled) }
        }
        await #expect(throws: FetchError.noConnectionAvailable) {
            try await fetcher.fetch(origin.url(for: ImageDescriptor(contentID: 10, width: 64, height: 64, format: .jpeg)))
        }
        holding.cancel()
        _ = try? await holding.value
        try await fetcher.shutdown()
        await origin.stop()
    }
}
