import Foundation
import Testing
@testable import ImagePipeline

/// A latch the test opens by hand: operations wait in `run` until `open()`,
/// and pass straight through after it. Cancelling a waiting operation
/// releases that operation alone. No wake-up can be lost: both registering a
/// waiter and checking for cancellation happen under one lock.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var starts = 0
        var cancellations = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    var starts: Int { state.withLock { $0.starts } }
    var cancellations: Int { state.withLock { $0.cancellations } }
    var waiting: Int { state.withLock { $0.waiting.count } }

    /// Waits until the gate opens (or this task is cancelled), then returns `value`.
    func run(_ value: String) async throws -> String {
        let id = state.withLock { state in
            state.starts += 1
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let proceed = state.withLock { state in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if proceed { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in
                state.cancellations += 1
                return state.waiting.removeValue(forKey: id)
            }
            continuation?.resume()
        }
        try Task.checkCancellation()
        return value
    }

    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
    }
}

struct Failure: Error, Equatable { let code: Int }

@Suite("FetchCoalescer: My Market's defects, fixed")
struct FetchCoalescerTests {
    @Test("a second caller for an in-flight key is not dropped: both get the value, one operation runs")
    func secondCallerServed() async throws {
        let gate = Gate()
        let coalescer = FetchCoalescer<String, String>()
        let fetch: @Sendable () async throws -> String = { try await gate.run("image of a") }
        async let first = coalescer.value(for: "a", fetch)
        await waitUntil { gate.waiting == 1 }
        async let second = coalescer.value(for: "a", fetch)
        await waitUntil { coalescer.statistics.joined == 1 }
        gate.open()
        let (a, b) = try await (first, second)
        #expect(a.0 == "image of a" && b.0 == "image of a")
        #expect(Set([a.1, b.1]) == [.started, .joined])
        #expect(gate.starts == 1)
    }

    @Test("100 concurrent callers: one operation, every caller answered once")
    func hundredCallers() async throws {
        let gate = Gate()
        let coalescer = FetchCoalescer<String, String>()
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<100 { group.addTask { try await coalescer.value(for: "k") { try await gate.run("k") }.0 } }
            await waitUntil { coalescer.statistics.joined + coalescer.statistics.started == 100 }
            gate.open()
            var answers = 0
            for try await value in group { #expect(value == "k"); answers += 1 }
            #expect(answers == 100)
        }
        #expect(gate.starts == 1)
        #expect(coalescer.inFlight == 0)
    }

    @Test("after completion the flight is gone: a later request runs the operation again")
    func refetchAfterCompletion() async throws {
        let count = Locked(0)
        let coalescer = FetchCoalescer<String, Int>()
        let next: @Sendable () async throws -> Int = { count.withLock { $0 += 1; return $0 } }
        #expect(try await coalescer.value(for: "a", next).0 == 1)
        #expect(try await coalescer.value(for: "a", next).0 == 2)
        #expect(coalescer.inFlight == 0)
    }

    @Test("on error every waiter hears it, not only the newest; the next request retries")
    func errorsReachEveryone() async throws {
        let gate = Gate()
        let attempts = Locked(0)
        let coalescer = FetchCoalescer<String, String>()
        let fetch: @Sendable () async throws -> String = {
            let attempt = attempts.withLock { $0 += 1; return $0 }
            _ = try await gate.run("a")
            if attempt == 1 { throw Failure(code: 503) }
            return "ok"
        }
        let waiters = (0..<5).map { _ in Task { try await coalescer.value(for: "a", fetch) } }
        await waitUntil { coalescer.statistics.started + coalescer.statistics.joined == 5 }
        gate.open()
        for waiter in waiters {
            await #expect(throws: Failure(code: 503)) { try await waiter.value }
        }
        let retry = Task { try await coalescer.value(for: "a", fetch).0 }  // the gate is open now
        #expect(try await retry.value == "ok")
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("a waiter that cancels leaves alone; the others still get the value")
    func cancelOneWaiter() async throws {
        let gate = Gate()
        let coalescer = FetchCoalescer<String, String>()
        let fetch: @Sendable () async throws -> String = { try await gate.run("a") }
        let leaving = Task { try await coalescer.value(for: "a", fetch) }
        let staying = Task { try await coalescer.value(for: "a", fetch) }
        await waitUntil { coalescer.statistics.started + coalescer.statistics.joined == 2 }
        leaving.cancel()
        await #expect(throws: CancellationError.self) { try await leaving.value }
        #expect(gate.cancellations == 0)  // the operation goes on for the other waiter
        gate.open()
        #expect(try await staying.value.0 == "a")
        #expect(coalescer.statistics.waitersCancelled == 1)
        #expect(coalescer.statistics.operationsCancelled == 0)
    }

    @Test("when the last waiter cancels, the operation is cancelled; a later request starts again")
    func cancelAllWaiters() async throws {
        let gate = Gate()
        let coalescer = FetchCoalescer<String, String>()
        let fetch: @Sendable () async throws -> String = { try await gate.run("a") }
        let waiters = (0..<3).map { _ in Task { try await coalescer.value(for: "a", fetch) } }
        await waitUntil { coalescer.statistics.started + coalescer.statistics.joined == 3 && gate.waiting == 1 }
        for waiter in waiters { waiter.cancel() }
        for waiter in waiters { await #expect(throws: CancellationError.self) { try await waiter.value } }
        await waitUntil { gate.cancellations == 1 }
        #expect(gate.cancellations == 1)
        #expect(coalescer.statistics.operationsCancelled == 1)
        gate.open()
        let again = Task { try await coalescer.value(for: "a", fetch).0 }
        #expect(try await again.value == "a")
        #expect(gate.starts == 2)
    }

    @Test("a caller already cancelled never joins")
    func cancelledBeforeJoining() async {
        let coalescer = FetchCoalescer<String, String>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await coalescer.value(for: "a") { "a" }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(coalescer.statistics.started == 0)
    }

    @Test("the operation runs at the highest priority among its waiters")
    func priorityIsHighest() async throws {
        let gate = Gate()
        let coalescer = FetchCoalescer<String, String>()
        let fetch: @Sendable () async throws -> String = { try await gate.run("a") }
        let low = Task { try await coalescer.value(for: "a", priority: .low, fetch) }
        await waitUntil { gate.waiting == 1 }
        #expect(coalescer.priority(of: "a") == .low)
        let high = Task { try await coalescer.value(for: "a", priority: .high, fetch) }
        await waitUntil { coalescer.statistics.joined == 1 }
        #expect(coalescer.priority(of: "a") == .high)
        gate.open()
        _ = try await (low.value, high.value)
    }

    @Test("concurrent keys and cancellations from many tasks: every waiter answered exactly once")
    func stress() async {
        let coalescer = FetchCoalescer<Int, Int>()
        let outcomes = await withTaskGroup(of: (ok: Int, cancelled: Int).self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var ok = 0, cancelled = 0
                    for step in 0..<60 {
                        let key = (worker * 7 + step) % 9
                        let task = Task {
                            try await coalescer.value(for: key) {
                                try await Task.sleep(for: .microseconds(200))
                                return key * 2
                            }.0
                        }
                        if step % 5 == 0 { task.cancel() }
                        do { #expect(try await task.value == key * 2); ok += 1 } catch { cancelled += 1 }
                    }
                    return (ok, cancelled)
                }
            }
            var total = (ok: 0, cancelled: 0)
            for await outcome in group { total.ok += outcome.ok; total.cancelled += outcome.cancelled }
            return total
        }
        #expect(outcomes.ok + outcomes.cancelled == 16 * 60)
        #expect(coalescer.inFlight == 0)
    }
}
