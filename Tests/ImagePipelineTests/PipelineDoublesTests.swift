import Foundation
import ImagePipeline
import Synchronization
import ImageSynthesis
import PipelineTesting
import Testing

/// The pipeline's coalescing, cancellation, invalidation and prefetch on a
/// scripted fetcher: no network, a fixed order, milliseconds each. One at a time: two tests hold a
/// disk write on a Dispatch worker thread for up to 300 s, and run together in the full suite on a
/// slow 2-core machine both ran to that bound, neither pipeline decoding or writing meanwhile.
@Suite("Pipeline on test doubles", .serialized)
struct PipelineDoublesTests {
    static let url = "https://img.example/a.jpg"
    static let jpeg = try! ImageSynthesizer.image(SynthesisSpec(seed: 3, width: 320, height: 240, format: .jpeg(quality: 80)))

    let fetcher = ScriptedFetcher([url: .data(jpeg)])

    func pipeline(disk: DiskCache.Configuration? = nil, policy: DiskCachePolicy = .originals) throws -> ImagePipeline {
        try ImagePipeline(.init(disk: disk, diskPolicy: policy, maxConcurrentDecodes: 2), fetcher: fetcher)
    }

    /// A pipeline whose disk tier, in `folder`, writes through `files`: a test can hold its writes.
    func pipeline(writingThrough files: FaultInjectingFileSystem, in folder: TemporaryFolder, policy: DiskCachePolicy) throws -> ImagePipeline {
        try pipeline(disk: .init(directory: folder.path, byteLimit: 10 << 20, fileSystem: files), policy: policy)
    }

    func request(_ side: Int = 100, url: String = url) -> ImageRequest {
        ImageRequest(url: url, box: .square(side))
    }

    @Test("fifty requests for one image while its download is held make one fetch and one decode")
    func coalescing() async throws {
        let pipeline = try pipeline()
        fetcher.closeGate()
        let sources = try await withThrowingTaskGroup(of: ImageResponse.Source.self) { group in
            for _ in 0..<50 { group.addTask { try await pipeline.image(for: request()).source } }
            await fetcher.waitUntilHeld(1)
            fetcher.openGate()
            return try await group.reduce(into: [ImageResponse.Source]()) { $0.append($1) }
        }
        #expect(fetcher.calls(to: Self.url) == 1)
        #expect(sources.filter { $0 == .origin }.count == 1)
        #expect(sources.filter { $0 == .joined }.count + sources.filter { $0 == .memory }.count == 49)
        #expect(pipeline.memoryCache.count == 1)
    }

    @Test("two display sizes share one download")
    func sizesShareDownload() async throws {
        let pipeline = try pipeline()
        fetcher.closeGate()
        async let small = pipeline.image(for: request(60))
        async let large = pipeline.image(for: request(200))
        await fetcher.waitUntilHeld(1)
        fetcher.openGate()
        let (a, b) = try await (small, large)
        #expect((a.image.width, b.image.width) == (60, 200))
        #expect(fetcher.calls(to: Self.url) == 1)
        #expect(pipeline.memoryCache.count == 2)
    }

    @Test("a waiter that cancels leaves alone; when every waiter has gone the download stops and nothing is stored")
    func cancellation() async throws {
        let pipeline = try pipeline()
        fetcher.closeGate()
        let leaving = Task { try await pipeline.image(for: request()) }
        let staying = Task { try await pipeline.image(for: request()) }
        await fetcher.waitUntilHeld(1)
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        fetcher.openGate()
        #expect(try await staying.value.image.width == 100)
        #expect(fetcher.cancelledCount == 0)

        fetcher.closeGate()
        let alone = Task { try await pipeline.image(for: request(50)) }
        await fetcher.waitUntilHeld(1)
        alone.cancel()
        await #expect(throws: CancellationError.self) { try await alone.value }
        await waitUntil { fetcher.cancelledCount > 0 }
        fetcher.openGate()
        #expect(pipeline.memoryCache.count == 1)  // only the first image
        #expect(pipeline.statistics.cancellations == 2)
    }

    @Test("an image invalidated while it downloads is answered but not cached; the next request fetches again")
    func invalidationRace() async throws {
        let pipeline = try pipeline()
        fetcher.closeGate()
        let inFlight = Task { try await pipeline.image(for: request()) }
        await fetcher.waitUntilHeld(1)
        pipeline.invalidate(url: Self.url)
        fetcher.openGate()
        #expect(try await inFlight.value.source == .origin)
        #expect(pipeline.memoryCache.count == 0)
        #expect(pipeline.statistics.staleDiscarded == 1)
        #expect(try await pipeline.image(for: request()).source == .origin)
        #expect(fetcher.calls(to: Self.url) == 2)
        #expect(try await pipeline.image(for: request()).source == .memory)
    }

    @Test("a cancelled prefetch stops its download and stores nothing; a finished one is a memory hit later")
    func prefetch() async throws {
        let pipeline = try pipeline()
        let other = "https://img.example/b.jpg"
        fetcher.set(other, .data(Self.jpeg))
        fetcher.closeGate()
        pipeline.prefetch([request(url: other)])
        await fetcher.waitUntilHeld(1)
        pipeline.cancelPrefetch([request(url: other)])
        await waitUntil { fetcher.cancelledCount > 0 }
        fetcher.openGate()
        #expect(pipeline.memoryCache.count == 0)

        pipeline.prefetch([request()])
        await waitUntil { pipeline.memoryCache.count > 0 }
        #expect(try await pipeline.image(for: request()).source == .memory)
    }

    @Test("a memory hit answers on the caller's actor without leaving it; a miss leaves it for the thread pool")
    func hitStaysOnCallersActor() async throws {
        let pipeline = try pipeline()
        let view = CountingActor()
        let miss = try await view.load(request(), from: pipeline, times: 1)
        #expect(miss.sources == [.origin])
        #expect(miss.jobs >= 1, "the miss came back to the actor as a job of its own")
        let hits = try await view.load(request(), from: pipeline, times: 20)
        #expect(hits.sources == Array(repeating: .memory, count: 20))
        #expect(hits.jobs == 0, "\(hits.jobs) hops back to the actor for 20 memory hits")
    }

    @Test("errors reach every waiter, and the next request retries")
    func errors() async throws {
        let pipeline = try pipeline()
        fetcher.set(Self.url, .failure(.status(503)))
        fetcher.closeGate()
        let waiters = (0..<5).map { _ in Task { try await pipeline.image(for: request()) } }
        await fetcher.waitUntilHeld(1)
        fetcher.openGate()
        for waiter in waiters { await #expect(throws: FetchError.status(503)) { try await waiter.value } }
        fetcher.set(Self.url, .data(Self.jpeg))
        #expect(try await pipeline.image(for: request()).source == .origin)
        #expect(fetcher.calls(to: Self.url) == 2)
    }

    @Test("a request is answered once its image is in memory: its disk write, held, does not hold it up")
    func answeredBeforeTheDiskWrite() async throws {
        let folder = TemporaryFolder("doubles"), files = FaultInjectingFileSystem()
        defer { folder.remove() }
        let pipeline = try pipeline(writingThrough: files, in: folder, policy: .thumbnails)
        let gate = DispatchSemaphore(value: 0), timedOut = SharedLocked(false)
        files.set { $0.beforeCreate = { _ in if gate.wait(timeout: .now() + 300) == .timedOut { timedOut.withLock { $0 = true } } } }
        // Were the answer to wait for its write, it would come only once the gate gave up (after
        // minutes: on a loaded machine, the whole suite's tasks share two cores).
        #expect(try await pipeline.image(for: request()).source == .origin)
        #expect(pipeline.memoryCache.count == 1)
        gate.signal()
        files.set { $0.beforeCreate = nil }  // the recency file the cache writes as it ends is not held
        await pipeline.waitForDiskWrites()
        #expect(!timedOut.withLock { $0 }, "the answer came before the write was let go")
        #expect(pipeline.diskCache?.count == 1)
    }

    @Test("an invalidation while a disk write is held removes what that write leaves: no old picture on disk")
    func invalidationAfterAHeldWrite() async throws {
        let folder = TemporaryFolder("doubles"), files = FaultInjectingFileSystem()
        defer { folder.remove() }
        let pipeline = try pipeline(writingThrough: files, in: folder, policy: .both)
        let gate = DispatchSemaphore(value: 0), held = SharedLocked(0)
        files.set {
            $0.beforeCreate = { _ in
                held.withLock { $0 += 1 }
                _ = gate.wait(timeout: .now() + 300)
            }
        }
        #expect(try await pipeline.image(for: request()).source == .origin)
        // Bounds generous enough for a loaded machine, where the whole suite's tasks share two cores.
        #expect(await eventually(within: .seconds(300)) { held.withLock { $0 } == 1 })
        // The invalidation waits for the writes queued before it, then removes what they wrote.
        // It holds its thread meanwhile, so it runs on one of its own, not on a task's.
        let invalidated = SharedLocked(false)
        Thread {
            pipeline.invalidate(url: Self.url)
            invalidated.withLock { $0 = true }
        }.start()
        gate.signal()
        gate.signal()
        #expect(await eventually(within: .seconds(300)) { invalidated.withLock { $0 } })
        files.set { $0.beforeCreate = nil }
        await pipeline.waitForDiskWrites()
        #expect(pipeline.diskCache?.count == 0)
        #expect(pipeline.memoryCache.count == 0)
        #expect(try await pipeline.image(for: request()).source == .origin)
    }

    @Test("under the thumbnails policy a disk hit needs no download, reads its entry once and stores nothing more on disk")
    func diskThumbnails() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doubles-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let disk = DiskCache.Configuration(directory: directory, byteLimit: 10 << 20)
        weak var ended: DiskCache?
        do {
            let first = try pipeline(disk: disk, policy: .thumbnails)
            ended = first.diskCache as? DiskCache
            #expect(try await first.image(for: request()).source == .origin)
            await first.waitForDiskWrites()
            #expect(first.diskCache?.count == 1)  // the thumbnail, not the original
        }
        // A relaunch follows the old process's end: the disk lock goes with the disk cache's last
        // reference, which a store finishing in the background may hold after the pipeline's is gone,
        // and only once its deinit has written the recency file. The weak reference is nil from the
        // deinit's start, so a relaunch at once could find the lock still held (it did, under load).
        await waitUntil { ended == nil }
        var reopened: ImagePipeline?
        await waitUntil {
            reopened = try? pipeline(disk: disk, policy: .thumbnails)
            return reopened != nil
        }
        let relaunched = try reopened ?? pipeline(disk: disk, policy: .thumbnails)  // its error, if it never opened
        #expect(try await relaunched.image(for: request()).source == .disk)
        #expect(relaunched.diskCache?.count == 1)
        #expect((relaunched.diskCache as? DiskCache)?.statistics.hits == 1, "the entry is read once")
        #expect(fetcher.calls(to: Self.url) == 1)
    }
}

@Suite("Tier plan")
struct TierPlanTests {
    @Test("what each source leaves behind, by disk policy and fate")
    func stores() {
        let none = TierPlan(diskPolicy: nil), originals = TierPlan(diskPolicy: .originals)
        let thumbnails = TierPlan(diskPolicy: .thumbnails), both = TierPlan(diskPolicy: .both)
        #expect(none.diskLookups.isEmpty && none.stores(after: .origin) == .memory)
        #expect(originals.diskLookups == [.original])
        #expect(originals.stores(after: .origin) == [.memory, .diskOriginal])
        #expect(originals.stores(after: .diskOriginal) == .memory)
        #expect(thumbnails.diskLookups == [.thumbnail])
        #expect(thumbnails.stores(after: .origin) == [.memory, .diskThumbnail])
        #expect(both.diskLookups == [.thumbnail, .original])
        #expect(both.stores(after: .origin) == [.memory, .diskOriginal, .diskThumbnail])
        #expect(both.stores(after: .diskOriginal) == [.memory, .diskThumbnail])
        #expect(both.stores(after: .diskThumbnail) == .memory)
        for fate in [TierPlan.Fate.invalidatedMeanwhile, .abandoned, .offline] {
            #expect(both.stores(after: .origin, fate).isEmpty)
        }
    }
}

/// A view's actor whose executor counts the jobs it is given: work that leaves the actor
/// comes back as one.
actor CountingActor {
    final class Executor: SerialExecutor {
        let jobs = Atomic<Int>(0)
        private let queue = DispatchQueue(label: "CountingActor")

        func enqueue(_ job: consuming ExecutorJob) {
            jobs.wrappingAdd(1, ordering: .relaxed)
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
        }
    }

    nonisolated let executor = Executor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Asks for `request` `times` times in a row; the sources, and the jobs that ran meanwhile.
    func load(_ request: ImageRequest, from pipeline: ImagePipeline, times: Int) async throws
        -> (sources: [ImageResponse.Source], jobs: Int) {
        let before = executor.jobs.load(ordering: .relaxed)
        var sources: [ImageResponse.Source] = []
        for _ in 0..<times { sources.append(try await pipeline.image(for: request).source) }
        return (sources, executor.jobs.load(ordering: .relaxed) - before)
    }
}
