import Foundation
import Histogram
import HTTPImageLoading
import ImagePipeline
import OriginServer
import CacheSimulation

/// The live pipeline (libvips, a disk tier in a temporary directory, HTTP to the
/// loopback origin) driven by a recorded workload: its order, its timing
/// compressed, its cancellations, relaunches (a new pipeline on the same disk),
/// new devices (a new disk), memory warnings and invalidations.
public enum LiveReplay {
    static let faults: [OriginFault] = [.serverError, .truncated, .reset, .htmlBody, .wrongContentType, .notFound]

    public static func run(
        _ full: RecordedWorkload, options: LiveReplayOptions, progress: ProgressLine = ProgressLine()
    ) async throws -> LiveReplayReport {
        var workload = options.sessionLimit.map { full.prefix(sessions: $0) } ?? full
        workload = options.requestLimit.map { workload.prefix($0) } ?? workload
        let latency = options.latencyMilliseconds > 0
            ? LatencyModel(otherHosts: .init(medianMilliseconds: options.latencyMilliseconds)) : .none
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imagecache-bench-replay-\(getpid())").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        return try await withLoopbackOrigin(
            store: options.originStore, latency: latency, connectionsPerHost: max(options.concurrency, 8)
        ) { origin, http in
            let run = try Run(workload: workload, options: options, origin: origin, fetcher: ReplayFetcher(http), scratch: scratch, progress: progress)
            let images = run.images, started = ContinuousClock.now
            try await origin.prepare(images) { done in
                guard done % 16 == 0, done > 0 else { return }
                // Only the pictures of the requests replayed; ones already in the store come at once.
                let seconds = (ContinuousClock.now - started).seconds
                let left = seconds / Double(done) * Double(images.count - done)
                progress.update("replay: the origin's pictures \(done)/\(images.count), about \(Int(left.rounded())) s left")
            }
            return try await run.replay()
        }
    }

    /// Runs `body` with the loopback origin (its pictures kept in `store`) and an HTTP client,
    /// both shut down afterwards, whether `body` returns or throws.
    static func withLoopbackOrigin<Result: Sendable>(
        store: String, latency: LatencyModel = .none, connectionsPerHost: Int = 8,
        _ body: (OriginServer, HTTPImageFetcher) async throws -> Result
    ) async throws -> Result {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let origin = try await OriginServer.start(.init(storeDirectory: store, storeByteLimit: 4 << 30, latency: latency))
        let http = HTTPImageFetcher(.init(connectionsPerHost: connectionsPerHost))
        do {
            let result = try await body(origin, http)
            try await http.shutdown()
            await origin.stop()
            return result
        } catch {
            try? await http.shutdown()
            await origin.stop()
            throw error
        }
    }

    /// The loopback URL of each of the workload's URLs (by id), and the pictures the origin
    /// serves: the first request of each URL names its picture.
    static func originURLs(of workload: RecordedWorkload, on origin: OriginServer) -> (urls: [String], images: [ImageDescriptor]) {
        var urls = [String](repeating: "", count: workload.urls.count)
        var images: [ImageDescriptor] = []
        for request in workload.requests where urls[Int(request.url)].isEmpty {
            let descriptor = ImageDescriptor(
                contentID: workload.contents[Int(request.content)], width: Int(request.width), height: Int(request.height),
                format: request.format ?? .jpeg)
            urls[Int(request.url)] = origin.url(for: descriptor, host: URL(string: workload.urls[Int(request.url)])?.host)
            images.append(descriptor)
        }
        return (urls, images)
    }

    /// One replay's state: the current pipeline (replaced on relaunches), the
    /// schedule, and the measurements. Used from the replaying task only.
    final class Run {
        let workload: RecordedWorkload
        let options: LiveReplayOptions
        let origin: OriginServer
        let fetcher: ReplayFetcher
        let scratch: String
        let progress: ProgressLine
        let memoryBytes: Int
        let diskBytes: Int?
        /// Loopback URL and host per URL id.
        let fetchURLs: [String]
        /// The pictures the origin serves, per URL id.
        let images: [ImageDescriptor]
        let measurements: SharedLocked<Measurements>
        /// The order the tiers took their decisions in, for the exact check.
        let recorder = ObservedOrderRecorder()
        /// The app's pipeline in this launch; nil only while it is replaced.
        var pipeline: ImagePipeline? {
            didSet { current.withLock { $0 = pipeline } }
        }
        /// The pipeline now, for the memory sampler.
        let current: SharedLocked<ImagePipeline?>
        var device = 0
        var totals = ImagePipeline.Statistics()
        /// The app's footprint on `options.device`, and the times it ended the app.
        var footprint: DeviceFootprint?
        var processEnds = 0
        /// When the first request went out: after the origin has its pictures ready, so neither
        /// requests per second nor a paced schedule counts the preparation.
        var start = ContinuousClock.now
        /// Where the compressed schedule is, the recorded time it stands for, and the next event.
        var schedule = Duration.zero
        var previous: UInt64 = 0
        var nextEvent = 0

        struct Measurements {
            var latency: [ImageResponse.Source: Histogram<UInt64>] = [:]
            var decode = Histogram<UInt64>.microseconds()
            var failed = 0
            var cancelled = 0
            var finished = 0
            /// Per request position, where the live pipeline answered it, in the simulator's terms
            /// (a waiter joined a flight; an origin answer was downloaded; a failure, an error
            /// shown as nothing, is offline's answer).
            var answers: [CacheSimulator.Answer]
        }

        init(workload: RecordedWorkload, options: LiveReplayOptions, origin: OriginServer, fetcher: ReplayFetcher,
             scratch: String, progress: ProgressLine) throws {
            self.workload = workload
            self.options = options
            self.origin = origin
            self.fetcher = fetcher
            self.scratch = scratch
            self.progress = progress
            measurements = SharedLocked(Measurements(answers: Array(repeating: .unanswered, count: workload.requests.count)))
            let trace = workload.simulationTrace(strategy: options.keyStrategy)
            memoryBytes = options.memory.resolved(footprint: trace.memoryFootprint)
            diskBytes = options.disk.map { $0.resolved(footprint: trace.diskFootprint) }
            (fetchURLs, images) = LiveReplay.originURLs(of: workload, on: origin)
            let first = try Self.makePipeline(
                options, memoryBytes, diskBytes, directory: scratch + "/device-0", fetcher: fetcher, recorder: recorder)
            current = SharedLocked(Optional(first))
            pipeline = first
            footprint = options.device.map(DeviceFootprint.init)
        }

        static func makePipeline(
            _ options: LiveReplayOptions, _ memoryBytes: Int, _ diskBytes: Int?, directory: String, fetcher: ReplayFetcher,
            recorder: ObservedOrderRecorder
        ) throws -> ImagePipeline {
            let configuration = ImagePipeline.Configuration(
                memory: .init(limits: CacheLimits(costLimit: memoryBytes), policy: options.policy, stripes: options.stripes),
                disk: diskBytes.map { DiskCache.Configuration(directory: directory, byteLimit: $0, sync: options.diskSync) },
                diskPolicy: options.diskPolicy, keyStrategy: options.keyStrategy, decisionRecorder: recorder)
            return try ImagePipeline(configuration, fetcher: fetcher)
        }

        func replay() async throws -> LiveReplayReport {
            let originBefore = origin.statistics, fetcherBefore = fetcher.http.statistics
            start = ContinuousClock.now
            let samples = SharedLocked<[LiveReplayReport.MemorySample]>([])
            let start = start
            let sampler = Task { [current] in
                while !Task.isCancelled {
                    let cost = current.withLock { $0?.memoryCache.totalCost ?? 0 }
                    samples.withLock {
                        $0.append(.init(seconds: (ContinuousClock.now - start).seconds, residentBytes: ProcessMetrics.residentBytes, memoryCacheBytes: cost))
                    }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            previous = workload.requests.first?.time ?? 0
            var index = 0
            // Launch by launch: a relaunch waits for the launch's requests, then starts a new pipeline.
            while index < workload.requests.count || nextEvent < workload.events.count {
                var endOfLaunch = workload.requests.count
                while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                    recorder.event(nextEvent)
                    try apply(workload.events[nextEvent].kind)
                    nextEvent += 1
                }
                if let boundary = workload.events[nextEvent...].first(where: { $0.kind.endsLaunch }) {
                    endOfLaunch = boundary.beforeRequest
                }
                let launch = index..<max(index, endOfLaunch)
                guard let current = pipeline else { break }
                if footprint != nil {
                    try await replayLaunchOnDevice(launch)
                } else {
                    await replayLaunch(launch, on: current)
                }
                index = launch.upperBound
                if let pipeline { totals.add(pipeline.statistics) }
                if index >= workload.requests.count, nextEvent >= workload.events.count { break }
            }
            sampler.cancel()
            closePipeline()   // before the scratch folder is removed
            progress.finish()
            let wall = (ContinuousClock.now - start).seconds
            return try report(wall: wall, originBefore: originBefore, fetcherBefore: fetcherBefore, samples: samples.withLock { $0 })
        }

        /// One launch's requests at their compressed times, at most `concurrency` in flight;
        /// returns when all of them are answered.
        private func replayLaunch(_ launch: Range<Int>, on current: ImagePipeline) async {
            let slots = AsyncSemaphore(permits: options.concurrency)
            let measurements = measurements
            await withDiscardingTaskGroup { group in
                for position in launch {
                    let request = workload.requests[position]
                    await wait(for: request)
                    if hasEvents(before: position) {
                        // A warning or an invalidation meets the tiers the requests before it left,
                        // as in the simulator: the requests in flight land first.
                        _ = try? await slots.withAllPermits { applyEvents(before: position, to: current) }
                    }
                    try? await slots.acquire()
                    let imageRequest = imageRequest(position), cancel = cancel(position)
                    group.addTask {
                        _ = await Self.load(imageRequest, position: position, on: current, cancel: cancel, into: measurements)
                        slots.release()
                    }
                    if position % 256 == 0 { progress.update("replay: \(position)/\(workload.requests.count) requests") }
                }
            }
        }

        /// One launch's requests one at a time on `options.device`: after each decoded image the
        /// footprint account (`DeviceFootprint`, the simulator's) says whether the system warns the
        /// pipeline or ends it; an ended pipeline's request is lost and a new one starts on the same disk.
        private func replayLaunchOnDevice(_ launch: Range<Int>) async throws {
            for position in launch {
                await wait(for: workload.requests[position])
                guard var current = pipeline, var footprint else { return }
                if hasEvents(before: position) { applyEvents(before: position, to: current) }
                let held = current.memoryCache.totalCost
                let decoded = await Self.load(
                    imageRequest(position), position: position, on: current, cancel: cancel(position), into: measurements)
                guard let decoded else { continue }
                switch footprint.decoded(held: held, decoding: decoded) {
                case .none: break
                case .warn(let level):
                    recorder.device(level == .critical ? .critical : .warning, request: position)
                    current.respond(to: systemReaction(to: level))
                case .end:
                    recorder.device(.end, request: position)
                    measurements.withLock { $0.answers[position] = .lost }
                    processEnds += 1
                    totals.add(current.statistics)
                    try replacePipeline()
                    current = pipeline!
                    footprint.restarted()
                }
                footprint.settled(held: current.memoryCache.totalCost)
                self.footprint = footprint
                if position % 256 == 0 { progress.update("replay: \(position)/\(workload.requests.count) requests") }
            }
        }

        private func imageRequest(_ position: Int) -> ImageRequest {
            let request = workload.requests[position]
            return ImageRequest(
                url: workload.urls[Int(request.url)], fetchURL: fetchURL(request, position),
                box: workload.boxes[Int(request.box)], priority: request.priority, id: position)
        }

        private func cancel(_ position: Int) -> Cancel? {
            workload.requests[position].cancelledAfter.map {
                options.cancellations == .recorded ? .atDownload(position, fetcher) : .after(cancelDelay($0))
            }
        }

        /// Sleeps until the request's compressed time (never, at speed 0).
        private func wait(for request: RecordedWorkload.Request) async {
            let gap = Duration.nanoseconds(Int64(request.time &- min(previous, request.time)))
            previous = request.time
            guard options.speed > 0 else { return }
            schedule += min(gap, options.longestGap) / options.speed
            try? await Task.sleep(until: start + schedule, clock: .continuous)
        }

        private func hasEvents(before position: Int) -> Bool {
            nextEvent < workload.events.count && workload.events[nextEvent].beforeRequest <= position
                && !workload.events[nextEvent].kind.endsLaunch
        }

        /// Warnings and invalidations inside a launch, in order with its requests.
        private func applyEvents(before position: Int, to current: ImagePipeline) {
            while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= position,
                  !workload.events[nextEvent].kind.endsLaunch {
                recorder.event(nextEvent)
                applyWithin(workload.events[nextEvent].kind, to: current)
                nextEvent += 1
            }
        }

        private func cancelDelay(_ milliseconds: Int) -> Duration {
            .milliseconds(milliseconds) / max(options.speed, 1)
        }

        /// The loopback URL, with a fault for a deterministic share of requests,
        /// marked when the device was offline or the app cancelled the request.
        private func fetchURL(_ request: RecordedWorkload.Request, _ position: Int) -> String {
            var url = fetchURLs[Int(request.url)]
            var random = SplitMix64(seed: UInt64(position))
            if options.faultRate > 0, random.nextUnitInterval() < options.faultRate {
                url += "&fault=\(LiveReplay.faults[Int(random.next() % UInt64(LiveReplay.faults.count))].rawValue)"
            }
            if request.offline { return ReplayFetcher.offline(url) }
            if request.cancelledAfter != nil, options.cancellations == .recorded { return ReplayFetcher.cancelled(url, position: position) }
            return url
        }

        /// How a request the app cancelled is cancelled.
        enum Cancel: Sendable {
            /// When its download starts (the fetcher cancels the registered task).
            case atDownload(Int, ReplayFetcher)
            /// After this long, racing the answer.
            case after(Duration)
        }

        /// Loads one request and books its answer; returns the bytes of the image it decoded (from disk or the origin).
        private static func load(
            _ request: ImageRequest, position: Int, on pipeline: ImagePipeline, cancel: Cancel?,
            into measurements: SharedLocked<Measurements>
        ) async -> Int? {
            let started = ContinuousClock.now
            let outcome: Result<ImageResponse, any Error>
            switch cancel {
            case nil:
                do { outcome = .success(try await pipeline.image(for: request)) } catch { outcome = .failure(error) }
            case .atDownload(let position, let fetcher):
                // Registered before it can run, so the fetcher always finds it.
                let task = fetcher.cancellable.withLock { tasks in
                    let task = Task { try await pipeline.image(for: request) }
                    tasks[position] = task
                    return task
                }
                outcome = await task.result
                fetcher.cancellable.withLock { _ = $0.removeValue(forKey: position) }
            case .after(let delay):
                outcome = await withTaskGroup(of: Result<ImageResponse, any Error>?.self) { race in
                    race.addTask {
                        do { return .success(try await pipeline.image(for: request)) } catch { return .failure(error) }
                    }
                    race.addTask {
                        try? await Task.sleep(for: delay)
                        return nil
                    }
                    let first = await race.next() ?? nil
                    race.cancelAll()
                    if let first { return first }
                    return await race.next().flatMap { $0 } ?? .failure(CancellationError())
                }
            }
            let elapsed = UInt64(max((ContinuousClock.now - started).seconds * 1e6, 1))
            measurements.withLock { books in
                books.finished += 1
                switch outcome {
                case .success(let response):
                    books.latency[response.source, default: .microseconds()].record(elapsed)
                    if let decode = response.timings.decode { books.decode.record(UInt64(max(decode.seconds * 1e6, 1))) }
                    books.answers[position] = switch response.source {
                    case .memory: .memory
                    case .joined: .joined
                    case .disk: .disk
                    case .origin: .origin
                    }
                case .failure(is CancellationError):
                    books.cancelled += 1
                    books.answers[position] = .cancelled
                case .failure:
                    books.failed += 1
                    books.answers[position] = .offline
                }
            }
            guard case .success(let response) = outcome, response.source == .disk || response.source == .origin else { return nil }
            return response.cost
        }

        /// Relaunches and new devices, between launches.
        private func apply(_ kind: RecordedWorkload.Event.Kind) throws {
            switch kind {
            case .relaunch:
                try replacePipeline()
                footprint?.restarted()
            case .newDevice:
                guard totals.requests > 0 || (pipeline?.statistics.requests ?? 0) > 0 else { return }
                footprint?.restarted()
                closePipeline()
                try? FileManager.default.removeItem(atPath: scratch + "/device-\(device)")
                device += 1
                try replacePipeline()
            case .memoryWarning, .invalidate:
                if let pipeline { applyWithin(kind, to: pipeline) }
            }
        }

        /// A new process on this device's disk: the old pipeline goes first, so
        /// its disk cache lets go of the directory.
        private func replacePipeline() throws {
            closePipeline()
            pipeline = try Self.makePipeline(
                options, memoryBytes, diskBytes, directory: scratch + "/device-\(device)", fetcher: fetcher, recorder: recorder)
        }

        /// The app's process ends: its disk tier saves its order and lets go of the directory now,
        /// not when the pipeline's last reference goes (a finished fetch task's, a moment later).
        private func closePipeline() {
            pipeline?.close()
            pipeline = nil
        }

        /// What the pipeline does when the system warns, as the simulator has it (an NSCache on a phone empties itself).
        private func systemReaction(to level: MemoryPressureLevel) -> MemoryPressureReaction {
            options.policy.reaction(to: level, under: options.reaction.policy, onDevice: options.device != nil)
        }

        private func applyWithin(_ kind: RecordedWorkload.Event.Kind, to pipeline: ImagePipeline) {
            switch kind {
            case .memoryWarning(let level): pipeline.respond(to: systemReaction(to: level))
            case .invalidate(let url): pipeline.invalidate(url: workload.urls[Int(url)])
            case .relaunch, .newDevice: break
            }
        }

        private func report(
            wall: Double, originBefore: OriginServer.Statistics, fetcherBefore: HTTPImageFetcher.Statistics,
            samples: [LiveReplayReport.MemorySample]
        ) throws -> LiveReplayReport {
            let books = measurements.withLock { $0 }
            let configuration = SimulationConfiguration(
                limits: CacheLimits(costLimit: memoryBytes), policy: options.policy, pressure: options.reaction.policy,
                disk: diskBytes.map { .init(byteLimit: $0, policy: options.diskPolicy) }, inFlight: options.concurrency,
                stripes: options.stripes, device: options.device)
            let trace = workload.simulationTrace(strategy: options.keyStrategy)
            let answered = CacheSimulator.answers(trace, configuration)
            let observed = recorder.order
            if let path = options.observedOrderPath { try ObservedOrderFile.write(observed, requests: trace.count, to: path) }
            let exact = CacheSimulator.answers(trace, configuration, observed: observed)
            let simulated = answered.result
            let simulatedJoins = answered.answers.count { $0 == .joined }
            func differences(from simulated: [CacheSimulator.Answer]) -> [String: Int] {
                var differences: [String: Int] = [:]
                for (live, simulated) in zip(books.answers, simulated) where live != simulated {
                    differences["\(live) / \(simulated)", default: 0] += 1
                }
                return differences
            }
            let exactDifferences = differences(from: exact.answers)
            let requests = workload.requests.count
            let origin = self.origin.statistics, fetched = fetcher.http.statistics
            return LiveReplayReport(
                trace: workload.name, configuration: options.describe, requests: requests,
                answered: books.latency.values.reduce(0) { $0 + Int($1.totalCount) }, failed: books.failed, cancelled: books.cancelled,
                wallSeconds: wall, requestsPerSecond: Double(requests) / max(wall, 1e-9),
                latency: Dictionary(uniqueKeysWithValues: books.latency.map { ($0.key.rawValue, LatencySummary($0.value)) }),
                decode: LatencySummary(books.decode),
                originRequests: origin.requests - originBefore.requests, originBytes: origin.bytesSent - originBefore.bytesSent,
                joinedWaiters: totals.joined, stoppedTransfers: fetched.cancelled - fetcherBefore.cancelled,
                peakResidentBytes: ProcessMetrics.peakResidentBytes,
                memoryHits: totals.memoryHits, diskHits: totals.diskHits, originLoads: totals.originLoads,
                liveHitRatio: Double(totals.memoryHits + totals.joined) / Double(max(requests, 1)),
                liveCombinedHitRatio: Double(totals.memoryHits + totals.joined + totals.diskHits) / Double(max(requests, 1)),
                simulatedHitRatio: simulated.hitRatio, simulatedCombinedHitRatio: simulated.combinedHitRatio,
                exact: .init(
                    observedSteps: observed.count, differingRequests: exactDifferences.values.reduce(0, +),
                    differences: exactDifferences),
                comparison: .init(
                    liveMemoryHits: totals.memoryHits, simulatedMemoryHits: Int(simulated.hits) - simulatedJoins,
                    liveDiskHits: totals.diskHits, simulatedDiskHits: simulated.diskHits,
                    liveCancelled: books.cancelled, simulatedCancelled: simulated.cancelledTransfers,
                    liveOffline: fetcher.offlineRefusals.withLock { $0 }, simulatedOffline: simulated.offlineMisses,
                    liveJoins: totals.joined, simulatedJoins: simulatedJoins,
                    liveSharedDownloads: max(totals.originLoads - (fetched.succeeded - fetcherBefore.succeeded), 0),
                    simulatedSharedDownloads: answered.sharedDownloads,
                    differences: differences(from: answered.answers)),
                memoryOverTime: samples,
                device: simulated.device.map { .init(liveProcessEnds: processEnds, simulated: $0) })
        }
    }
}

extension RecordedWorkload.Event.Kind {
    /// Whether the app's process ends here (a relaunch or another device).
    var endsLaunch: Bool {
        switch self {
        case .relaunch, .newDevice: true
        case .memoryWarning, .invalidate: false
        }
    }
}

extension ImagePipeline.Statistics {
    mutating func add(_ other: ImagePipeline.Statistics) {
        requests += other.requests
        memoryHits += other.memoryHits
        diskHits += other.diskHits
        originLoads += other.originLoads
        joined += other.joined
        failures += other.failures
        cancellations += other.cancellations
        staleDiscarded += other.staleDiscarded
    }
}

extension Histogram<UInt64> {
    /// Microseconds from 1 µs to 10 minutes, three significant digits.
    static func microseconds() -> Histogram<UInt64> {
        Histogram(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
    }
}
