import ImagePipeline

/// One replayed request: asked of the pipeline, cancelled as the app cancelled it, its
/// outcome recorded.
enum ReplayedRequest {
    /// How a request the app cancelled is cancelled.
    enum Cancel: Sendable {
        /// When its download starts (the fetcher cancels the registered task).
        case atDownload(Int, ReplayFetcher)
        /// After this long, racing the answer.
        case after(Duration)
    }

    /// A request on its way, made by the driver in the order the app asked for it. A request
    /// the app cancels runs as a task of its own, made here (and, cancelled at its download,
    /// registered with the fetcher before it can run): made inside the request's own task, it
    /// would queue behind every request the driver made after it, and a burst of requests
    /// (a relaunch's first screen) would reach the pipeline out of the order the app asked.
    struct Started: Sendable {
        let request: ImageRequest
        /// The request's own task, when the app cancels it.
        let task: Task<ImageResponse, any Error>?
        let cancel: Cancel?
    }

    /// Starts `request` on `pipeline`, cancelled as `cancel` says.
    static func start(_ request: ImageRequest, on pipeline: ImagePipeline, cancel: Cancel?) -> Started {
        func task() -> Task<ImageResponse, any Error> { Task { try await pipeline.image(for: request) } }
        switch cancel {
        case nil:
            return Started(request: request, task: nil, cancel: nil)
        case .atDownload(let position, let fetcher)?:
            // Registered before it can run, so the fetcher always finds it.
            let registered = fetcher.cancellable.withLock { tasks in
                let made = task()
                tasks[position] = made
                return made
            }
            return Started(request: request, task: registered, cancel: cancel)
        case .after?:
            return Started(request: request, task: task(), cancel: cancel)
        }
    }

    /// Waits for `started`'s answer and records it, timed from `asked`: when the app asked for
    /// it, which may be before this task runs (a task waits for a thread on a busy machine, and
    /// the clock counts that wait as a phone's view would), and `replayStarted` (for when it was
    /// asked). Returns the bytes of the image it decoded (from disk or the origin).
    static func load(
        _ started: Started, position: Int, on pipeline: ImagePipeline, asked: ContinuousClock.Instant = .now,
        replayStarted: ContinuousClock.Instant, into measurements: SharedLocked<ReplayMeasurements>
    ) async -> Int? {
        let outcome: Result<ImageResponse, any Error>
        switch (started.task, started.cancel) {
        case (let task?, .atDownload(let position, let fetcher)?):
            outcome = await task.result
            fetcher.cancellable.withLock { _ = $0.removeValue(forKey: position) }
        case (let task?, .after(let delay)?):
            // The answer, or a cancellation when `delay` passes first.
            let timer = Task {
                try await Task.sleep(for: delay)
                task.cancel()
            }
            outcome = await task.result
            timer.cancel()
        default:
            do { outcome = .success(try await pipeline.image(for: started.request)) } catch { outcome = .failure(error) }
        }
        let elapsed = UInt64(max((ContinuousClock.now - asked).seconds * 1e6, 1))
        let askedAt = UInt64(max((asked - replayStarted).seconds * 1e9, 0))
        measurements.withLock {
            $0.record(outcome, box: started.request.processing.request, position: position, asked: askedAt, elapsed: elapsed)
        }
        guard case .success(let response) = outcome, response.source == .disk || response.source == .origin else { return nil }
        return response.cost
    }
}
