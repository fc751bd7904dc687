import Synchronization

/// One in-flight operation per key, shared by every caller that asks for the
/// key while it runs (the fix for every defect of My Market's hand-rolled
/// version, APPS.md):
///
/// - every waiter hears the result or the error exactly once, not just the newest;
/// - a waiter that cancels leaves alone; the operation is cancelled only when
///   the last waiter has left, and a later request starts it again;
/// - the flight is gone once it finishes, so a request after completion (or
///   after the value was evicted) runs the operation again;
/// - the operation runs at the highest priority among its waiters;
/// - all state is behind one lock; joining is O(1) (flights are mutated in place).
public final class FetchCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public typealias Operation = @Sendable () async throws -> Value

    /// How a waiter got its value.
    public enum Role: Sendable, Equatable {
        /// Started the operation.
        case started
        /// Joined an operation already in flight.
        case joined
    }

    /// Counters for tests and reports.
    public struct Statistics: Sendable, Equatable {
        public var started = 0
        public var joined = 0
        /// Waiters that left by cancelling.
        public var waitersCancelled = 0
        /// Operations cancelled because their last waiter left.
        public var operationsCancelled = 0
    }

    private let state = Locked(State())
    private let waiterIDs = Atomic<UInt64>(0)

    public init() {}

    /// What `whileLocked` hears, under the coalescer's lock.
    public enum FlightEvent: Sendable, Equatable {
        /// The caller joined a flight, or started one.
        case joined, started
        /// The flight the caller started is gone: finished, or abandoned by its last waiter.
        case ended
    }

    /// The value for `key`: joins the operation in flight for it, or starts
    /// `operation` (only the caller that starts a flight has its closure run).
    /// `whileLocked` hears, under the lock, whether the caller joined or started, and
    /// for a flight it started, when that flight ends (a replay records that order).
    public func value(
        for key: Key, priority: TaskPriority = .medium,
        whileLocked: @escaping @Sendable (FlightEvent) -> Void = { _ in }, _ operation: @escaping Operation
    ) async throws -> (Value, Role) {
        let waiter = waiterIDs.wrappingAdd(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Value, Role), any Error>) in
                state.withLock { state in
                    // Under the lock: a cancellation either ran before (and is
                    // seen here) or will find this waiter registered.
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    guard let flight = state.join(
                        key, waiter: waiter, continuation: continuation, priority: priority, whileLocked: whileLocked)
                    else { return }
                    // Made under the lock, so a waiter leaving at once always finds the task
                    // to cancel; the task waits for the lock before it can finish.
                    state.flights[key]!.task = Task(priority: priority) {
                        let result: Result<Value, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        self.finish(key, flight: flight, result)
                    }
                }
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Keys with an operation in flight.
    public var inFlight: Int { state.withLock { $0.flights.count } }

    /// The priority the operation for `key` runs at, if one is in flight.
    public func priority(of key: Key) -> TaskPriority? { state.withLock { $0.flights[key]?.priority } }

    private func finish(_ key: Key, flight: UInt64, _ result: Result<Value, any Error>) {
        let waiters = state.withLock { $0.complete(key, flight: flight) }
        for (role, continuation) in waiters {
            continuation.resume(with: result.map { ($0, role) })
        }
    }

    private func leave(_ key: Key, waiter: UInt64) {
        let (continuation, task) = state.withLock { $0.leave(key, waiter: waiter) }
        continuation?.resume(throwing: CancellationError())
        task?.cancel()
    }
}

extension FetchCoalescer {
    private struct Flight {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: (role: Role, continuation: CheckedContinuation<(Value, Role), any Error>)] = [:]
        var priority: TaskPriority
        /// The starter's `whileLocked`, told when the flight ends.
        let whileLocked: @Sendable (FlightEvent) -> Void
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var statistics = Statistics()
        var flightCounter: UInt64 = 0

        /// Adds a waiter; returns a new flight's id when the caller must start it.
        mutating func join(
            _ key: Key, waiter: UInt64, continuation: CheckedContinuation<(Value, Role), any Error>,
            priority: TaskPriority, whileLocked: @escaping @Sendable (FlightEvent) -> Void
        ) -> UInt64? {
            // In place through the subscript: copying the flight out would copy
            // its waiters on every join (quadratic for a crowd).
            if flights[key] != nil {
                flights[key]!.waiters[waiter] = (.joined, continuation)
                if priority > flights[key]!.priority {
                    flights[key]!.priority = priority
                    if #available(macOS 26.0, *) { flights[key]!.task?.escalatePriority(to: priority) }
                }
                statistics.joined += 1
                whileLocked(.joined)
                return nil
            }
            flightCounter += 1
            var flight = Flight(id: flightCounter, priority: priority, whileLocked: whileLocked)
            flight.waiters[waiter] = (.started, continuation)
            flights[key] = flight
            statistics.started += 1
            whileLocked(.started)
            return flight.id
        }

        /// Ends a flight; returns its waiters to resume.
        mutating func complete(_ key: Key, flight id: UInt64) -> [(Role, CheckedContinuation<(Value, Role), any Error>)] {
            guard let flight = flights[key], flight.id == id else { return [] }
            flights[key] = nil
            flight.whileLocked(.ended)
            return flight.waiters.values.map { ($0.role, $0.continuation) }
        }

        /// Removes a cancelled waiter; returns its continuation, and the task to
        /// cancel when it was the last one.
        mutating func leave(_ key: Key, waiter: UInt64) -> (CheckedContinuation<(Value, Role), any Error>?, Task<Void, Never>?) {
            guard flights[key] != nil, let removed = flights[key]!.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            statistics.waitersCancelled += 1
            guard flights[key]!.waiters.isEmpty else { return (removed.continuation, nil) }
            let abandoned = flights.removeValue(forKey: key)
            abandoned?.whileLocked(.ended)
            let task = abandoned?.task
            statistics.operationsCancelled += 1
            return (removed.continuation, task)
        }
    }
}
