import AsyncHTTPClient
import Benchmark
import Tolerances
import Foundation
import HTTPImageLoading
import ImagePipeline
import OriginServer

/// The loading targets, each beside its peer: a memory hit and a 50 KB disk hit
/// through `image(for:)`; the pipeline's network stage against a bare
/// AsyncHTTPClient GET of the same file on loopback; a waiter joining a flight
/// against a task awaiting another task.
let benchmarks: @Sendable () -> Void = {
    defer { Tolerances.apply() }
    let fixture = SharedLocked<Fixture?>(nil)
    let setup: @Sendable () async throws -> Void = {
        guard fixture.withLock({ $0 }) == nil else { return }
        let made = try await Fixture.make()
        fixture.withLock { $0 = made }
    }
    func use() -> Fixture { fixture.withLock { $0! } }
    let perOperation = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3), maxIterations: 20_000)

    Benchmark("image(for:) memory hit", configuration: perOperation, closure: { benchmark in
        _ = try? await use().memoryPipeline.image(for: use().request)
    }, setup: setup)

    Benchmark("image(for:) disk hit, 50 KB thumbnail", configuration: perOperation, closure: { benchmark in
        let fixture = use()
        fixture.diskPipeline.memoryCache.removeAll()
        benchmark.startMeasurement()
        _ = try? await fixture.diskPipeline.image(for: fixture.diskRequest)
    }, setup: setup)

    Benchmark("network: HTTPImageFetcher (the pipeline's fetch stage)", configuration: perOperation, closure: { _ in
        _ = try? await use().fetcher.fetch(use().fileURL)
    }, setup: setup)

    Benchmark("network: bare AsyncHTTPClient GET", configuration: perOperation, closure: { _ in
        let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: use().fileURL), timeout: .seconds(10))
        _ = try? await response?.body.collect(upTo: 1 << 24)
    }, setup: setup)

    Benchmark("image(for:) network miss: fetch + thumbnail + store", configuration: perOperation, closure: { benchmark in
        let fixture = use()
        fixture.memoryPipeline.memoryCache.removeAll()
        benchmark.startMeasurement()
        _ = try? await fixture.memoryPipeline.image(for: fixture.request)
    }, setup: setup)

    Benchmark("coalescer: 100 waiters join one flight", configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3)), closure: { _ in
        let coalescer = FetchCoalescer<Int, Int>()
        let release = AsyncSemaphore(permits: 1)
        try? await release.acquire()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { _ = try? await coalescer.value(for: 1) { try await release.acquire(); return 1 } }
            }
            while coalescer.statistics.joined + coalescer.statistics.started < 100 { await Task.yield() }
            release.release()
        }
    })

    Benchmark("peer: 100 tasks await one task", configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(3)), closure: { _ in
        let release = AsyncSemaphore(permits: 1)
        try? await release.acquire()
        let flight = Task { try await release.acquire(); return 1 }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<100 { group.addTask { _ = try? await flight.value } }
            release.release()
        }
    })
}

/// An origin and two pipelines, made once for all the loading benchmarks.
final class Fixture: Sendable {
    let origin: OriginServer
    let fetcher: HTTPImageFetcher
    let memoryPipeline: ImagePipeline
    let diskPipeline: ImagePipeline
    let request: ImageRequest
    let diskRequest: ImageRequest
    /// A ~50 KB JPEG on the origin.
    let fileURL: String

    private init(origin: OriginServer, fetcher: HTTPImageFetcher, memoryPipeline: ImagePipeline, diskPipeline: ImagePipeline,
                 request: ImageRequest, diskRequest: ImageRequest, fileURL: String) {
        self.origin = origin
        self.fetcher = fetcher
        self.memoryPipeline = memoryPipeline
        self.diskPipeline = diskPipeline
        self.request = request
        self.diskRequest = diskRequest
        self.fileURL = fileURL
    }

    static func make() async throws -> Fixture {
        let origin = try await OriginServer.start()
        let fetcher = HTTPImageFetcher()
        let fileURL = origin.url(for: ImageDescriptor(contentID: 50, width: 640, height: 480, format: .jpeg, quality: 85))
        let photo = ImageDescriptor(contentID: 51, width: 1600, height: 1200, format: .jpeg)
        let request = ImageRequest(url: "https://cdn.example/photo.jpg", fetchURL: origin.url(for: photo), box: .square(120))
        let diskRequest = ImageRequest(url: "https://cdn.example/photo.jpg", fetchURL: origin.url(for: photo), box: .square(560))
        let memoryPipeline = try ImagePipeline(.init(), fetcher: fetcher)
        let directory = temporaryDirectory()
        let diskPipeline = try ImagePipeline(
            .init(disk: .init(directory: directory, byteLimit: 1 << 28, sync: .none), diskPolicy: .thumbnails,
                  thumbnailDiskFormat: .jpeg(quality: 90)),
            fetcher: fetcher)
        _ = try await memoryPipeline.image(for: request)
        _ = try await diskPipeline.image(for: diskRequest)
        _ = try await fetcher.fetch(fileURL)
        return Fixture(origin: origin, fetcher: fetcher, memoryPipeline: memoryPipeline, diskPipeline: diskPipeline,
                       request: request, diskRequest: diskRequest, fileURL: fileURL)
    }
}
