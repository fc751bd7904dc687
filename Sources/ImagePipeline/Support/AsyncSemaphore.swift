/// Permits for async code: `acquire` suspends (never blocks a thread) until a
/// permit is free, in arrival order, and gives up if its task is cancelled.
public final class AsyncSemaphore: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID: UInt64 = 0
    }

    private let state: Locked<State>
    /// Permits in all.
    public let permits: Int

    public init(permits: Int) {
        self.permits = max(permits, 1)
        state = Locked(State(available: self.permits))
    }

    /// Runs `body` holding every permit: after the work that holds one now has finished and
    /// before any more starts (a replay applies an event with nothing in flight this way).
    public func withAllPermits<Result>(_ body: () async throws -> Result) async throws -> Result {
        var held = 0
        defer { for _ in 0..<held { release() } }
        for _ in 0..<permits {
            try await acquire()
            held += 1
        }
        return try await body()
    }

    public func acquire() async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.available > 0 {
                        state.available -= 1
                        return .success(())
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    public func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiters.isEmpty else {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Runs `work` holding a permit.
    public func withPermit<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        try await acquire()
        defer { release() }
        return try await work()
    }
}
