import Foundation

/// Memory → disk → network → thumbnail → stored: the pipeline the five apps
/// hand-rolled, with the key, memory, coalescing and cancellation bugs fixed.
///
/// - Memory holds decoded thumbnails under keys that include the box.
/// - Disk holds what `diskPolicy` says: originals, re-encoded thumbnails, or
///   both; a disk hit of an original still makes the thumbnail with no network.
/// - Requests for one image share one flight (disk read, decode, store), and
///   downloads for one URL share one transfer across display sizes. A caller
///   that cancels leaves alone; the transfer stops when nobody waits.
/// - Decoding runs on its own queue, at most `maxConcurrentDecodes` at once,
///   never on the caller's thread.
/// - `invalidate(url:)` drops every cached form of a URL, and a download in
///   flight at that moment is not cached when it lands.
public final class ImagePipeline: Sendable {
    public struct Configuration: Sendable {
        /// The built-in memory tier's limits and policy, unless `imageCache` is set.
        public var memory: MemoryCache<String, DecodedImage>.Configuration
        /// A memory tier of your own, in place of the built-in one `memory` describes.
        public var imageCache: (any ImageCaching)?
        /// The built-in disk tier, or none; unless `dataCache` is set.
        public var disk: DiskCache.Configuration?
        /// A disk tier of your own, in place of the built-in one `disk` describes.
        public var dataCache: (any DataCaching)?
        public var diskPolicy: DiskCachePolicy
        public var thumbnailDiskFormat: EncodedFormat
        public var keyStrategy: CacheKeyStrategy
        public var thumbnailer: any ImageDecoding
        public var maxConcurrentDecodes: Int
        /// Hears each decision taken for a request that carries an `id`, in the order the
        /// tiers took them (a replay that checks a simulator request by request sets it).
        public var decisionRecorder: (any DecisionRecorder)?

        public static let defaultThumbnailDiskFormat = EncodedFormat.jpeg(quality: 80)

        public init(
            memory: MemoryCache<String, DecodedImage>.Configuration = .init(limits: CacheLimits(costLimit: 100 << 20)),
            imageCache: (any ImageCaching)? = nil,
            disk: DiskCache.Configuration? = nil, dataCache: (any DataCaching)? = nil, diskPolicy: DiskCachePolicy = .originals,
            thumbnailDiskFormat: EncodedFormat = defaultThumbnailDiskFormat,
            keyStrategy: CacheKeyStrategy = CacheKeyStrategy(.normalized, includesProcessing: true),
            thumbnailer: any ImageDecoding = Thumbnailer(),
            maxConcurrentDecodes: Int = ProcessInfo.processInfo.activeProcessorCount,
            decisionRecorder: (any DecisionRecorder)? = nil
        ) {
            self.memory = memory
            self.imageCache = imageCache
            self.disk = disk
            self.dataCache = dataCache
            self.diskPolicy = diskPolicy
            self.thumbnailDiskFormat = thumbnailDiskFormat
            self.keyStrategy = keyStrategy
            self.thumbnailer = thumbnailer
            self.maxConcurrentDecodes = maxConcurrentDecodes
            self.decisionRecorder = decisionRecorder
        }
    }

    /// Counts by outcome.
    public struct Statistics: Sendable, Equatable, Codable {
        public var requests = 0
        public var memoryHits = 0
        public var diskHits = 0
        public var originLoads = 0
        public var joined = 0
        public var failures = 0
        public var cancellations = 0
        public var staleDiscarded = 0

        public init() {}
    }

    public let configuration: Configuration
    public let memoryCache: any ImageCaching
    public let diskCache: (any DataCaching)?
    /// Which tiers a request consults and what it leaves in each: the same
    /// decisions the simulator takes.
    public let plan: TierPlan
    private let fetcher: any ImageFetcher
    private let flights = FetchCoalescer<String, Produced>()
    private let downloads = FetchCoalescer<String, FetchedImage>()
    private let decodeSlots: AsyncSemaphore
    /// One serial queue per decode permit, each with a thread of its own (see `diskWriteQueue`).
    private let decodeQueues: SharedLocked<[DispatchQueue]>
    private let diskQueue = DispatchQueue(label: "ImagePipeline.disk", attributes: .concurrent)
    /// Disk writes under way. A request is answered once its image is in memory, not when its
    /// bytes reach the disk (as Nuke and Kingfisher answer by default); `close()` waits for them.
    private let diskWrites = DispatchGroup()
    /// Where disk writes and an invalidation's disk removals run, one at a time and in order, on
    /// a thread of their own: CPU-bound work (a thumbnail's encoding, as a decode) on a concurrent
    /// queue shares the threads that run Swift's tasks on Linux, and holds up every memory hit.
    private let diskWriteQueue = DispatchQueue(label: "ImagePipeline.diskWrites")
    private let ledger: SharedLocked<InvalidationLedger>
    /// Prefetches running, by memory key, so that `cancelPrefetch` finds them.
    private let prefetches = SharedLocked<[String: Task<Void, Never>]>([:])
    private let counters = PipelineCounters()

    public init(_ configuration: Configuration, fetcher: any ImageFetcher) throws(DiskCacheError) {
        self.configuration = configuration
        self.fetcher = fetcher
        memoryCache = configuration.imageCache ?? ImageMemoryCache(configuration.memory)
        ledger = SharedLocked(InvalidationLedger())
        if let dataCache = configuration.dataCache {
            diskCache = dataCache
        } else if var disk = configuration.disk {
            if let recorder = configuration.decisionRecorder {
                disk.trimmed = { recorder.record(.diskTrimmed, request: -1) }
            }
            diskCache = try DiskCache(disk)
        } else {
            diskCache = nil
        }
        plan = TierPlan(diskPolicy: diskCache == nil ? nil : configuration.diskPolicy)
        decodeSlots = AsyncSemaphore(permits: configuration.maxConcurrentDecodes)
        decodeQueues = SharedLocked((0..<decodeSlots.permits).map { DispatchQueue(label: "ImagePipeline.decode.\($0)") })
    }

    public var statistics: Statistics { counters.statistics }

    /// The thumbnail for `request`: from memory, disk, or the network.
    ///
    /// A memory hit is answered on the caller's executor (a view on the main actor gets its
    /// thumbnail without leaving it: two hops to the thread pool and back cost microseconds,
    /// the hit a fraction of one); a miss continues on the thread pool.
    nonisolated(nonsending)
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        // A hit needs only the memory key's bytes, written on the stack; the key strings are
        // built on a miss.
        let memoryCache = memoryCache
        let decisions = RequestDecisions(configuration.decisionRecorder, request.id)
        // Heard only when recorded: a lookup that is heard takes the lock even for a hit.
        let lookupHeard: (@Sendable (Bool) -> Void)?
        if decisions.isRecording { lookupHeard = { _ in decisions.record(.memoryLookup) } } else { lookupHeard = nil }
        if let image = configuration.keyStrategy.withKeyBytes(for: request.url, processing: request.processing, {
            memoryCache.image(forUTF8: $0, whileLocked: lookupHeard)
        }) {
            counters.count(.memoryHit)
            return ImageResponse(image: image, source: .memory, timings: .init())
        }
        return try await load(request, decisions)
    }

    /// After a memory miss: a flight shared with every request for the same thumbnail. Apart
    /// from `image(for:)`, so that a hit's async frame holds only what a hit needs.
    @concurrent
    private func load(_ request: ImageRequest, _ decisions: RequestDecisions) async throws -> ImageResponse {
        let start = ContinuousClock.now
        let keys = Keys(request, strategy: configuration.keyStrategy, format: configuration.thumbnailDiskFormat)
        counters.count(.memoryMiss)
        let generation = ledger.withLock { $0.generation(of: keys.original) }
        do {
            let (produced, role) = try await flights.value(
                for: keys.memory, priority: request.priority.taskPriority,
                whileLocked: { decisions.record($0 == .ended ? .flightEnded : .flight) }
            ) {
                try await self.produce(request, keys, generation: generation, decisions)
            }
            var timings = produced.timings
            timings.total = ContinuousClock.now - start
            let source: ImageResponse.Source = role == .joined ? .joined : produced.source
            switch source {
            case .joined: counters.count(.joined)
            case .disk: counters.count(.diskHit)
            case .origin: counters.count(.originLoad)
            case .memory: break
            }
            return ImageResponse(image: produced.image, source: source, timings: timings)
        } catch is CancellationError {
            counters.count(.cancellation)
            throw CancellationError()
        } catch {
            counters.count(.failure)
            decisions.record(.failed)
            throw error
        }
    }

    /// Loads a page's images in parallel and answers in request order (like
    /// Vanilladin's 10 covers per page, kept in relevance order).
    public func images(for requests: [ImageRequest]) async -> [Result<ImageResponse, any Error>] {
        await withTaskGroup(of: (Int, Result<ImageResponse, any Error>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask(priority: request.priority.taskPriority) {
                    do { return (index, .success(try await self.image(for: request))) } catch { return (index, .failure(error)) }
                }
            }
            var results = [Result<ImageResponse, any Error>?](repeating: nil, count: requests.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0! }
        }
    }

    /// Starts loading images about to be shown, at low priority.
    public func prefetch(_ requests: [ImageRequest]) {
        for var request in requests {
            request.priority = .prefetch
            let key = memoryKey(request)
            let prefetch = request
            // Made under the lock, so a prefetch that ends at once cannot remove its entry before it is there.
            prefetches.withLock { running in
                running[key] = Task(priority: .low) { [self, prefetch, key] in
                    _ = try? await image(for: prefetch)
                    prefetches.withLock { _ = $0.removeValue(forKey: key) }
                }
            }
        }
    }

    /// Stops prefetching these images (the download stops if nobody else waits).
    public func cancelPrefetch(_ requests: [ImageRequest]) {
        for request in requests {
            let key = memoryKey(request)
            prefetches.withLock { $0.removeValue(forKey: key) }?.cancel()
        }
    }

    /// Drops every cached form of `url` (memory thumbnails, disk original and
    /// thumbnails): its content changed or was deleted, as with edited products. Returns once
    /// the disk writes queued before it have ended and its removals are done.
    public func invalidate(url: String) {
        let original = configuration.keyStrategy.withoutProcessing.key(for: url)
        let variants = ledger.withLock { $0.invalidate(original) }
        for variant in variants { memoryCache.remove(variant.memory) }
        guard let diskCache else { return }
        // After the writes already queued, so none of them puts an old entry back.
        diskWriteQueue.sync {
            for variant in variants { diskCache.remove(variant.disk) }
            diskCache.remove(original)
        }
    }

    private func memoryKey(_ request: ImageRequest) -> String {
        configuration.keyStrategy.key(for: request.url, processing: request.processing)
    }

    // MARK: - The shared work

    private struct Produced: Sendable {
        let image: DecodedImage
        let source: ImageResponse.Source
        let timings: ImageResponse.Timings
    }

    /// After a memory miss: the disk entries the plan names, in its order, then the origin.
    private func produce(
        _ request: ImageRequest, _ keys: Keys, generation: UInt64, _ decisions: RequestDecisions
    ) async throws -> Produced {
        var timings = ImageResponse.Timings()
        if let disk = diskCache, !plan.diskLookups.isEmpty {
            let plan = plan
            let found = await onDiskQueue {
                plan.firstDiskHit { kind in
                    disk.data(for: kind == .thumbnail ? keys.diskThumbnail : keys.original) {
                        decisions.record(kind == .thumbnail ? .diskReadThumbnail : .diskReadOriginal)
                    }
                }
            }
            if let (kind, data) = found {
                let image = try await decode(data, request, &timings)
                await store(image, from: TierPlan.Source(disk: kind), keys, generation: generation, decisions, &timings)
                return Produced(image: image, source: .disk, timings: timings)
            }
        }
        let fetchStart = ContinuousClock.now
        let (fetched, _) = try await downloads.value(
            for: keys.original, priority: request.priority.taskPriority,
            whileLocked: { decisions.record($0 == .ended ? .downloadEnded : .download) }
        ) {
            let fetched = try await self.fetcher.fetch(request.fetchURL ?? request.url)
            if self.plan.stores(after: .origin, self.fate(keys.original, generation)).contains(.diskOriginal),
               let disk = self.diskCache {
                self.writeToDisk(keys.original, generation) {
                    disk.store(fetched.data, for: keys.original, kind: .original) { decisions.record(.originalStored, bytes: $0) }
                }
            }
            return fetched
        }
        timings.fetch = ContinuousClock.now - fetchStart
        let image = try await decode(fetched.data, request, &timings)
        await store(image, from: .origin, keys, generation: generation, decisions, &timings)
        return Produced(image: image, source: .origin, timings: timings)
    }

    /// Blocking disk work (reads, writes, re-encoding for disk) on the disk queue: a file system
    /// that stalls holds one of its threads, not one of the cooperative pool's few, which keep
    /// answering and decoding meanwhile.
    private func onDiskQueue<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        let queue = diskQueue
        return await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: work()) } }
    }

    /// A disk write of one of `original`'s entries, not waited for (see `diskWrites`). It is
    /// dropped when the URL was invalidated after the image was made: the invalidation's disk
    /// removals run on the same queue, so a write is either before them or sees the new generation.
    private func writeToDisk(_ original: String, _ generation: UInt64, _ work: @escaping @Sendable () -> Void) {
        let writes = diskWrites, ledger = ledger
        writes.enter()
        diskWriteQueue.async {
            if ledger.withLock({ $0.generation(of: original) == generation }) { work() }
            writes.leave()
        }
    }

    /// Returns once every disk write started so far has ended (`close()` waits so too), without
    /// holding a thread meanwhile.
    public func waitForDiskWrites() async {
        await withCheckedContinuation { continuation in diskWrites.notify(queue: diskWriteQueue) { continuation.resume() } }
    }

    /// Thumbnails on the decode queue, holding one of the decode permits.
    private func decode(_ data: Data, _ request: ImageRequest, _ timings: inout ImageResponse.Timings) async throws -> DecodedImage {
        let thumbnailer = configuration.thumbnailer
        let box = request.processing.request
        let queues = decodeQueues
        let asked = ContinuousClock.now
        let (image, waited, took) = try await decodeSlots.withPermit {
            // A permit holder always finds a queue free: there are as many queues as permits.
            let queue = queues.withLock { $0.removeLast() }
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(DecodedImage, Duration, Duration), any Error>) in
                queue.async {
                    let start = ContinuousClock.now
                    let result = Result {
                        (try Self.checked(thumbnailer.thumbnail(data, fitting: box)), start - asked, ContinuousClock.now - start)
                    }
                    queues.withLock { $0.append(queue) }
                    continuation.resume(with: result)
                }
            }
        }
        timings.decodeWait = waited
        timings.decode = took
        return image
    }

    /// A decoder's image, refused when it is not what `DecodedImage` promises (a decoder of a user's own).
    private static func checked(_ image: DecodedImage) throws(DecodingError) -> DecodedImage {
        guard image.isWellFormed else {
            throw .corrupt(image.source.format, detail: "the decoder made \(image.width)×\(image.height)×\(image.bands) pixels in \(image.pixels.count) bytes")
        }
        return image
    }

    /// Leaves a fresh thumbnail where the plan says: memory, and re-encoded on disk.
    private func store(
        _ image: DecodedImage, from source: TierPlan.Source, _ keys: Keys, generation: UInt64, _ decisions: RequestDecisions,
        _ timings: inout ImageResponse.Timings
    ) async {
        let start = ContinuousClock.now
        let fate = fate(keys.original, generation)
        if fate == .invalidatedMeanwhile { counters.count(.staleDiscarded) }
        let stores = plan.stores(after: source, fate)
        guard stores.contains(.memory) else { return }
        let memoryCache = memoryCache
        ledger.withLock { $0.remember(keys, stillHeld: memoryCache.contains) }
        memoryCache.insert(image, for: keys.memory) { decisions.record(.memoryStored) }
        if stores.contains(.diskThumbnail), let disk = diskCache {
            let format = configuration.thumbnailDiskFormat
            writeToDisk(keys.original, generation) {
                guard let encoded = try? image.encoded(as: format) else { return }
                disk.store(encoded, for: keys.diskThumbnail, kind: .thumbnail) { decisions.record(.thumbnailStored, bytes: $0) }
            }
        }
        timings.store = ContinuousClock.now - start
    }

    /// What happened to a flight since its memory miss: its URL invalidated, or
    /// every waiter gone (the coalescer cancels the flight's task).
    private func fate(_ original: String, _ generation: UInt64) -> TierPlan.Fate {
        if Task.isCancelled { return .abandoned }
        return ledger.withLock { $0.generation(of: original) == generation } ? .answered : .invalidatedMeanwhile
    }
}

extension ImagePipeline {
    /// Ends the pipeline's use of its disk tier now: pending trims run, the access order is
    /// saved for the next open, and the directory's lock is let go, so a new pipeline (a
    /// relaunch) can open it at once. The disk writes under way end first. Call it when the
    /// app's process would end; requests after it miss the disk. Closing twice does nothing.
    public func close() {
        diskWrites.wait()
        diskCache?.close()
    }
}

extension ImagePipeline: MemoryPressureResponder {
    /// Memory warnings reach the memory tier; the disk tier keeps its bytes.
    public func respond(to reaction: MemoryPressureReaction) {
        memoryCache.respond(to: reaction)
    }
}

extension ImagePipeline {
    /// The keys one request uses.
    struct Keys: Sendable {
        /// The URL under the strategy, without processing: disk originals and downloads.
        let original: String
        /// With the box: memory thumbnails.
        let memory: String
        /// With the box and the disk format: re-encoded thumbnails on disk.
        let diskThumbnail: String

        init(_ request: ImageRequest, strategy: CacheKeyStrategy, format: EncodedFormat) {
            (original, memory, diskThumbnail) = strategy.keys(for: request.url, processing: request.processing, diskFormat: format.imageFormat)
        }
    }
}
