import Foundation
import ImagePipeline
import OriginServer
import CacheSimulation

extension LiveReplay {
    /// Drives one replay: the workload's requests at their compressed times, at most
    /// `concurrency` in flight, launch by launch, with the events between them, into the
    /// replayed app (`ReplayedApp`); then the report (`LiveReplayDriver+Report.swift`).
    /// Used from the replaying task only.
    final class Driver {
        let workload: RecordedWorkload
        /// The workload as the simulator beside live sees it.
        let trace: SimulationTrace
        let options: LiveReplayOptions
        let origin: OriginServer
        let fetcher: ReplayFetcher
        let progress: ProgressLine
        /// Loopback URL and host per URL id.
        let fetchURLs: [String]
        /// The pictures the origin serves, per URL id.
        let images: [ImageDescriptor]
        let measurements: SharedLocked<ReplayMeasurements>
        /// The order the tiers took their decisions in, for the exact check.
        let recorder = ObservedOrderRecorder()
        let app: ReplayedApp
        /// The app's footprint on `options.device`, and the times the system ended it.
        var footprint: DeviceFootprint?
        var processEnds = 0
        /// When the first request went out: after the origin has its pictures ready, so neither
        /// requests per second nor a paced schedule counts the preparation.
        var start = ContinuousClock.now
        /// Where the compressed schedule is, the recorded time it stands for, and the next event.
        var schedule = Duration.zero
        var previous: UInt64 = 0
        var nextEvent = 0

        init(workload: RecordedWorkload, trace: SimulationTrace, options: LiveReplayOptions, origin: OriginServer,
             fetcher: ReplayFetcher, scratch: String, progress: ProgressLine) throws {
            self.workload = workload
            self.trace = trace
            self.options = options
            self.origin = origin
            self.fetcher = fetcher
            self.progress = progress
            measurements = SharedLocked(ReplayMeasurements(requests: workload.requests.count))
            (fetchURLs, images) = LiveReplay.originURLs(of: workload, on: origin)
            app = try ReplayedApp(
                options: options, memoryBytes: options.memory.resolved(footprint: trace.memoryFootprint),
                diskBytes: options.disk.map { $0.resolved(footprint: trace.diskFootprint) },
                scratch: scratch, fetcher: fetcher, recorder: recorder)
            footprint = options.device.map(DeviceFootprint.init)
        }

        func replay(shaping: LinkShaping?) async throws -> LiveReplayReport {
            let originBefore = origin.statistics, fetcherBefore = fetcher.http.statistics
            start = ContinuousClock.now
            let samples = SharedLocked<[LiveReplayReport.MemorySample]>([])
            let start = start
            let sampler = Task { [current = app.current] in
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
                    // An event meets what the launch's requests left, their disk writes included.
                    await app.pipeline?.waitForDiskWrites()
                    recorder.event(nextEvent)
                    try apply(workload.events[nextEvent].kind)
                    nextEvent += 1
                }
                if let boundary = workload.events[nextEvent...].first(where: { $0.kind.endsLaunch }) {
                    endOfLaunch = boundary.beforeRequest
                }
                let launch = index..<max(index, endOfLaunch)
                guard let current = app.pipeline else { break }
                if footprint != nil {
                    try await replayLaunchOnDevice(launch)
                } else {
                    await replayLaunch(launch, on: current)
                }
                index = launch.upperBound
                app.countLaunch()
                if index >= workload.requests.count, nextEvent >= workload.events.count { break }
            }
            sampler.cancel()
            app.close()   // before the scratch folder is removed
            progress.finish()
            let wall = (ContinuousClock.now - start).seconds
            return try report(
                wall: wall, originBefore: originBefore, fetcherBefore: fetcherBefore, samples: samples.withLock { $0 }, shaping: shaping)
        }

        /// One launch's requests at their compressed times, at most `concurrency` in flight;
        /// returns when all of them are answered.
        private func replayLaunch(_ launch: Range<Int>, on current: ImagePipeline) async {
            let slots = AsyncSemaphore(permits: options.concurrency)
            // When each place was freed, oldest first. A request that waited for a place was
            // asked when one freed (or at its own time, if later), however late this driver got
            // to it on a busy machine: the clock asks then too.
            let freed = SharedLocked<[ContinuousClock.Instant]>([])
            let measurements = measurements, start = start
            await withDiscardingTaskGroup { group in
                for position in launch {
                    let request = workload.requests[position]
                    let due = await wait(for: request)
                    if hasEvents(before: position) {
                        // A warning or an invalidation meets the tiers the requests before it left,
                        // as in the simulator: the requests in flight land first, and their disk writes end.
                        _ = try? await slots.withAllPermits { await applyEvents(before: position, to: current) }
                        freed.withLock { $0.removeAll() }
                    }
                    try? await slots.acquire()
                    let place = freed.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    let asked = place.map { max($0, due ?? $0) } ?? due ?? .now
                    let started = ReplayedRequest.start(imageRequest(position), on: current, cancel: cancel(position))
                    group.addTask {
                        _ = await ReplayedRequest.load(
                            started, position: position, on: current, asked: asked, replayStarted: start, into: measurements)
                        freed.withLock { $0.append(.now) }
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
                guard var current = app.pipeline, var footprint else { return }
                if hasEvents(before: position) { await applyEvents(before: position, to: current) }
                let held = current.memoryCache.totalCost
                let decoded = await ReplayedRequest.load(
                    ReplayedRequest.start(imageRequest(position), on: current, cancel: cancel(position)), position: position, on: current,
                    replayStarted: start, into: measurements)
                guard let decoded else { continue }
                switch footprint.decoded(held: held, decoding: decoded) {
                case .none: break
                case .warn(let level):
                    recorder.device(level == .critical ? .critical : .warning, request: position)
                    current.respond(to: app.systemReaction(to: level))
                case .end:
                    recorder.device(.end, request: position)
                    measurements.withLock { $0.answers[position] = .lost }
                    processEnds += 1
                    try app.endedBySystem()
                    origin.clientProcessEnded()
                    current = app.pipeline!
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

        private func cancel(_ position: Int) -> ReplayedRequest.Cancel? {
            workload.requests[position].cancelledAfter.map {
                options.cancellations == .recorded ? .atDownload(position, fetcher) : .after(cancelDelay($0))
            }
        }

        /// Sleeps until `request`'s compressed time and returns it; nil back to back (speed 0: never sleeps).
        @discardableResult
        private func wait(for request: RecordedWorkload.Request) async -> ContinuousClock.Instant? {
            let gap = Duration.nanoseconds(Int64(request.time &- min(previous, request.time)))
            previous = request.time
            guard options.speed > 0 else { return nil }
            schedule += min(gap, options.longestGap) / options.speed
            try? await Task.sleep(until: start + schedule, clock: .continuous)
            return start + schedule
        }

        private func hasEvents(before position: Int) -> Bool {
            nextEvent < workload.events.count && workload.events[nextEvent].beforeRequest <= position
                && !workload.events[nextEvent].kind.endsLaunch
        }

        /// Warnings and invalidations inside a launch, in order with its requests.
        private func applyEvents(before position: Int, to current: ImagePipeline) async {
            await current.waitForDiskWrites()
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

        /// Relaunches and new devices, between launches.
        private func apply(_ kind: RecordedWorkload.Event.Kind) throws {
            switch kind {
            case .relaunch:
                try app.relaunch()
                origin.clientProcessEnded()
                footprint?.restarted()
            case .newDevice:
                if try app.moveToNewDevice() {
                    footprint?.restarted()
                    origin.clientProcessEnded()
                }
            case .memoryWarning, .invalidate:
                if let pipeline = app.pipeline { applyWithin(kind, to: pipeline) }
            }
        }

        private func applyWithin(_ kind: RecordedWorkload.Event.Kind, to pipeline: ImagePipeline) {
            switch kind {
            case .memoryWarning(let level): pipeline.respond(to: app.systemReaction(to: level))
            case .invalidate(let url): pipeline.invalidate(url: workload.urls[Int(url)])
            case .relaunch, .newDevice: break
            }
        }
    }
}
