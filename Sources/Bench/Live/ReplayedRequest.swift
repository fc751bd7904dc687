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

    /// Loads `request` and records its answer, timed from `asked`: when the app asked for it,
    /// which may be before this task runs (a task waits for a thread on a busy machine, and the
    /// clock counts that wait as a phone's view would), and `replayStarted` (for when it was asked).
    /// Returns the bytes of the image it decoded (from disk or the origin).
    static func load(
        _ request: ImageRequest, position: Int, on pipeline: ImagePipeline, cancel: Cancel?,
        asked started: ContinuousClock.Instant = .now, replayStarted: ContinuousClock.Instant,
        into measurements: SharedLocked<ReplayMeasurements>
    ) async -> Int? {
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
            outcome = await race(request, on: pipeline, against: delay)
        }
        let elapsed = UInt64(max((ContinuousClock.now - started).seconds * 1e6, 1))
        let asked = UInt64(max((started - replayStarted).seconds * 1e9, 0))
        measurements.withLock { $0.record(outcome, box: request.processing.request, position: position, asked: asked, elapsed: elapsed) }
        guard case .success(let response) = outcome, response.source == .disk || response.source == .origin else { return nil }
        return response.cost
    }

    /// The answer, or a cancellation when `delay` passes first.
    private static func race(
        _ request: ImageRequest, on pipeline: ImagePipeline, against delay: Duration
    ) async -> Result<ImageResponse, any Error> {
        await withTaskGroup(of: Result<ImageResponse, any Error>?.self) { race in
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
}
