import Foundation
import ImagePipeline
import Synchronization

/// An `ImageFetcher` that answers from a script: bytes or an error per URL,
/// a gate that holds every response until released, and a count of calls per
/// URL. Coalescing, cancellation and invalidation races run on it in
/// microseconds and in a fixed order; the loopback origin stays for
/// integration tests.
public final class ScriptedFetcher: ImageFetcher {
    public enum Response: Sendable {
        case data(Data, contentType: String = "image/jpeg")
        case failure(FetchError)
    }

    private struct State {
        var responses: [String: Response]
        var fallback: Response?
        var calls: [String: Int] = [:]
        var gateClosed = false
        var held: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelled = 0
    }

    private let state: SharedLocked<State>
    private let waiterIDs = Atomic<UInt64>(0)

    /// `fallback` answers URLs the script does not name (nil: `FetchError.status(404)`).
    public init(_ responses: [String: Response] = [:], fallback: Response? = nil) {
        state = SharedLocked(State(responses: responses, fallback: fallback))
    }

    public func set(_ url: String, _ response: Response) { state.withLock { $0.responses[url] = response } }

    /// Holds every response from now on until `openGate()`.
    public func closeGate() { state.withLock { $0.gateClosed = true } }

    /// Lets every held response go, and later ones through.
    public func openGate() {
        let held = state.withLock { state in
            state.gateClosed = false
            defer { state.held.removeAll() }
            return Array(state.held.values)
        }
        for continuation in held { continuation.resume() }
    }

    /// Fetches begun for `url`.
    public func calls(to url: String) -> Int { state.withLock { $0.calls[url] ?? 0 } }
    /// Fetches waiting at the closed gate.
    public var heldCount: Int { state.withLock { $0.held.count } }
    /// Fetches whose task was cancelled while held.
    public var cancelledCount: Int { state.withLock { $0.cancelled } }

    /// Returns once `count` fetches wait at the gate (polling; the test's time limit bounds it).
    public func waitUntilHeld(_ count: Int) async {
        while heldCount < count { await Task.yield() }
    }

    public func fetch(_ url: String) async throws -> FetchedImage {
        let gated = state.withLock { state in
            state.calls[url, default: 0] += 1
            return state.gateClosed
        }
        if gated { await passGate() }
        if Task.isCancelled {
            state.withLock { $0.cancelled += 1 }
            throw CancellationError()
        }
        switch state.withLock({ $0.responses[url] ?? $0.fallback }) {
        case .data(let data, let contentType):
            return FetchedImage(data: data, contentType: contentType, headDuration: .zero, totalDuration: .zero)
        case .failure(let error):
            throw error
        case nil:
            throw FetchError.status(404)
        }
    }

    /// Waits until the gate opens or this task is cancelled.
    private func passGate() async {
        let id = waiterIDs.wrappingAdd(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let passNow = state.withLock { state in
                    guard state.gateClosed, !Task.isCancelled else { return true }
                    state.held[id] = continuation
                    return false
                }
                if passNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.resume()
        }
    }
}
