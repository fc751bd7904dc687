import Foundation
import HTTPImageLoading
import ImagePipeline
import Logging
import OriginServer
import PipelineTesting
import Testing

/// A pipeline over a fresh loopback origin, with a disk tier in its own directory.
struct Harness {
    let origin: OriginServer
    let fetcher: HTTPImageFetcher
    let pipeline: ImagePipeline
    let diskDirectory: String

    static func make(
        policy: DiskCachePolicy = .originals, diskDirectory: String? = nil, origin: OriginServer? = nil,
        fetcher: HTTPImageFetcher.Configuration = .loopbackUnderLoad
    ) async throws -> Harness {
        let server: OriginServer
        if let origin { server = origin } else { server = try await startOrigin(stall: .seconds(60)) }
        let directory = diskDirectory ?? FileManager.default.temporaryDirectory.appendingPathComponent("icb-pipe-\(UUID().uuidString)").path
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        let httpFetcher = HTTPImageFetcher(fetcher)
        let pipeline = try ImagePipeline(
            .init(disk: .init(directory: directory, byteLimit: 64 << 20, sync: .none, logger: logger), diskPolicy: policy),
            fetcher: httpFetcher)
        return Harness(origin: server, fetcher: httpFetcher, pipeline: pipeline, diskDirectory: directory)
    }

    func request(_ id: UInt64, _ width: Int = 800, _ height: Int = 600, box: Int = 100, fault: OriginFault? = nil,
                 host: String? = nil) -> ImageRequest {
        let original = "https://cdn.example.com/photos/\(id).jpg"
        let descriptor = ImageDescriptor(contentID: id, width: width, height: height, format: .jpeg)
        return ImageRequest(url: original, fetchURL: origin.url(for: descriptor, originalURL: original, host: host, fault: fault),
                            box: .square(box))
    }

    func close() async throws {
        try await fetcher.shutdown()
        await origin.stop()
        try? FileManager.default.removeItem(atPath: diskDirectory)
    }
}

/// Fails the test instead of hanging when `work` takes longer than `limit`.
func within<T: Sendable>(_ limit: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await work() }
        group.addTask { try await Task.sleep(for: limit); return nil }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            throw TimedOut()
        }
        group.cancelAll()
        return value
    }
}

struct TimedOut: Error {}

@Suite("ImagePipeline against the loopback origin")
struct PipelineOverHTTPTests {
    @Test("network, then memory; with memory purged, disk and no network")
    func tiers() async throws {
        let harness = try await Harness.make()
        let request = harness.request(1, 1200, 800, box: 150)
        let first = try await harness.pipeline.image(for: request)
        #expect(first.source == .origin)
        #expect((first.image.width, first.image.height) == (150, 100))
        #expect(first.timings.fetch != nil && first.timings.decode != nil)
        #expect(try await harness.pipeline.image(for: request).source == .memory)
        await harness.pipeline.waitForDiskWrites()  // answered before its bytes reach the disk
        harness.pipeline.memoryCache.removeAll()
        let fromDisk = try await harness.pipeline.image(for: request)
        #expect(fromDisk.source == .disk)
        // Each making is timed apart from its wait for a decode permit, both inside the whole.
        for answer in [first, fromDisk] {
            let wait = try #require(answer.timings.decodeWait), decode = try #require(answer.timings.decode)
            #expect(wait >= .zero && wait + decode <= answer.timings.total)
        }
        #expect(fromDisk.image.pixels == first.image.pixels)
        #expect(harness.origin.statistics.requests == 1)
        let stats = harness.pipeline.statistics
        #expect((stats.requests, stats.originLoads, stats.memoryHits, stats.diskHits) == (3, 1, 1, 1))
        try await harness.close()
    }

    @Test("a disk of thumbnails answers with the re-encoded thumbnail")
    func thumbnailDisk() async throws {
        let harness = try await Harness.make(policy: .thumbnails)
        let request = harness.request(2, 2000, 1000, box: 200)
        _ = try await harness.pipeline.image(for: request)
        await harness.pipeline.waitForDiskWrites()
        harness.pipeline.memoryCache.removeAll()
        let again = try await harness.pipeline.image(for: request)
        #expect(again.source == .disk)
        #expect((again.image.width, again.image.height) == (200, 100))
        #expect(harness.pipeline.diskCache?.count == 1)  // the thumbnail only
        try await harness.close()
    }

    @Test("100 concurrent requests for one URL make one origin request")
    func hundredRequests() async throws {
        let harness = try await Harness.make()
        let request = harness.request(3, 1600, 900, host: "slow")
        let sources = try await withThrowingTaskGroup(of: ImageResponse.Source.self) { group in
            for _ in 0..<100 { group.addTask { try await harness.pipeline.image(for: request).source } }
            var sources: [ImageResponse.Source] = []
            for try await source in group { sources.append(source) }
            return sources
        }
        #expect(sources.count == 100)
        #expect(harness.origin.statistics.requests == 1)
        #expect(sources.filter { $0 == .origin }.count == 1)
        #expect(!sources.contains(.disk))
        try await harness.close()
    }

    @Test("two display sizes of one URL share one download")
    func sizesShareDownload() async throws {
        let harness = try await Harness.make()
        var list = harness.request(4, 1600, 900, box: 100)
        var detail = list
        detail.processing = ProcessingOptions(.square(400))
        list.priority = .visible
        async let a = harness.pipeline.image(for: list)
        async let b = harness.pipeline.image(for: detail)
        let (small, large) = try await (a, b)
        #expect(small.image.width == 100 && large.image.width == 400)
        #expect(harness.origin.statistics.requests == 1)
        try await harness.close()
    }

    @Test("cancelling one waiter affects no other; cancelling all stops the transfer")
    func cancellation() async throws {
        let harness = try await Harness.make()
        let slow = harness.request(5, 1600, 1200, fault: .slowDrip)
        let waiters = (0..<3).map { _ in Task { try await harness.pipeline.image(for: slow) } }
        // The one download the three share is under way before the first waiter leaves.
        #expect(await eventually { harness.origin.statistics.requests == 1 })
        waiters[0].cancel()
        await #expect(throws: CancellationError.self) { try await waiters[0].value }
        try await Task.sleep(for: .milliseconds(100))
        #expect(harness.origin.statistics.abortedByClient == 0)  // still downloading for the others
        waiters[1].cancel()
        waiters[2].cancel()
        for waiter in waiters.dropFirst() { await #expect(throws: CancellationError.self) { try await waiter.value } }
        #expect(await eventually { harness.origin.statistics.abortedByClient == 1 })  // the server saw the connection close
        #expect(harness.fetcher.statistics.cancelled == 1)
        try await harness.close()
    }

    /// A fault and the typed error every waiter must get for it.
    struct FaultCase: Sendable, CustomTestStringConvertible {
        let fault: OriginFault
        let matches: @Sendable (any Error) -> Bool
        var testDescription: String { fault.rawValue }
    }

    static let faultCases: [FaultCase] = [
        FaultCase(fault: .notFound) { ($0 as? FetchError) == .status(404) },
        FaultCase(fault: .serverError) { ($0 as? FetchError) == .status(500) },
        FaultCase(fault: .unavailable) { ($0 as? FetchError) == .status(503) },
        FaultCase(fault: .htmlBody) { ($0 as? FetchError) == .contentType("text/html; charset=utf-8") },
        FaultCase(fault: .wrongContentType) { ($0 as? FetchError) == .contentType("text/plain") },
        FaultCase(fault: .truncated) { if case .truncated = $0 as? FetchError { true } else { false } },
        FaultCase(fault: .reset) { if case .truncated = $0 as? FetchError { true } else { false } },
        FaultCase(fault: .stall) { ($0 as? FetchError) == .timedOut },
        FaultCase(fault: .bomb) { ($0 as? DecodingError) == .tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000) },
    ]

    @Test("every fault reaches every waiter as a typed error, promptly", arguments: faultCases)
    func faults(_ fault: FaultCase) async throws {
        // A stall must outlast the client's head timeout; everything else gets time to spare.
        let harness = fault.fault == .stall
            ? try await Harness.make(fetcher: .init(requestTimeout: .seconds(1)))
            : try await Harness.make()
        let request = harness.request(6, 640, 480, fault: fault.fault)
        let errors = try await within(.seconds(45)) {
            await withTaskGroup(of: (any Error)?.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do { _ = try await harness.pipeline.image(for: request); return nil } catch { return error }
                    }
                }
                var errors: [(any Error)?] = []
                for await error in group { errors.append(error) }
                return errors
            }
        }
        #expect(errors.count == 3)
        for error in errors {
            #expect(error.map(fault.matches) == true, "\(fault.fault): \(String(describing: error))")
        }
        #expect(harness.pipeline.statistics.failures == 3)
        try await harness.close()
    }

    @Test("after an error, the next request fetches again")
    func retryAfterError() async throws {
        let harness = try await Harness.make()
        await #expect(throws: FetchError.status(503)) { try await harness.pipeline.image(for: harness.request(7, fault: .unavailable)) }
        let recovered = try await harness.pipeline.image(for: harness.request(7))
        #expect(recovered.source == .origin)
        #expect(harness.origin.statistics.requests == 2)
        try await harness.close()
    }

    @Test("invalidate drops memory and disk; the next request downloads again")
    func invalidation() async throws {
        let harness = try await Harness.make(policy: .both)
        let request = harness.request(8, 900, 600, box: 120)
        _ = try await harness.pipeline.image(for: request)
        await harness.pipeline.waitForDiskWrites()
        #expect(harness.pipeline.diskCache?.count == 2)  // original and thumbnail
        harness.pipeline.invalidate(url: request.url)
        #expect(harness.pipeline.memoryCache.image(for: CacheKeyStrategy(.normalized, includesProcessing: true)
            .key(for: request.url, processing: request.processing)) == nil)
        #expect(harness.pipeline.diskCache?.count == 0)
        #expect(try await harness.pipeline.image(for: request).source == .origin)
        #expect(harness.origin.statistics.requests == 2)
        try await harness.close()
    }

    @Test("a page loads in parallel and answers in request order")
    func orderedPage() async throws {
        let harness = try await Harness.make()
        // Different sizes tell the answers apart; random latency scrambles arrival.
        let requests = (0..<10).map { harness.request(100 + UInt64($0), 300 + 20 * $0, 300, box: 1_000, host: "varied") }
        let results = await harness.pipeline.images(for: requests)
        for (index, result) in results.enumerated() {
            #expect(try result.get().image.width == 300 + 20 * index)
        }
        try await harness.close()
    }

    @Test("memory warnings reach the pipeline's memory tier")
    func memoryPressure() async throws {
        let harness = try await Harness.make()
        _ = try await harness.pipeline.image(for: harness.request(9))
        await harness.pipeline.waitForDiskWrites()
        harness.pipeline.respond(to: .purgeAll)
        #expect(harness.pipeline.memoryCache.count == 0)
        #expect(try await harness.pipeline.image(for: harness.request(9)).source == .disk)
        try await harness.close()
    }
}
