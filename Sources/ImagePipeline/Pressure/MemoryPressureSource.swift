import Synchronization

/// Something that announces memory warnings.
public protocol MemoryPressureSource: Sendable {
    /// Warnings as they happen; the stream finishes when the source stops.
    func events() -> AsyncStream<MemoryPressureLevel>
}

/// Warnings sent by hand: tests, and traces that recorded the app's warnings.
public final class ManualPressureSource: MemoryPressureSource {
    private let subscribers = Locked<[Int: AsyncStream<MemoryPressureLevel>.Continuation]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    public func events() -> AsyncStream<MemoryPressureLevel> {
        let (stream, continuation) = AsyncStream.makeStream(of: MemoryPressureLevel.self)
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Whether anyone is listening (tests wait for this before sending).
    public var hasSubscribers: Bool { subscribers.withLock { !$0.isEmpty } }

    /// Delivers a warning to every current subscriber.
    public func send(_ level: MemoryPressureLevel) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(level) }
    }

    /// Ends every subscriber's stream.
    public func finish() {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.finish() }
    }
}

/// A warning at a fixed interval, for reproducing "a warning every N seconds".
public struct ScheduledPressureSource: MemoryPressureSource {
    public let interval: Duration
    public let level: MemoryPressureLevel

    public init(every interval: Duration, level: MemoryPressureLevel = .warning) {
        self.interval = interval
        self.level = level
    }

    public func events() -> AsyncStream<MemoryPressureLevel> {
        let (stream, continuation) = AsyncStream.makeStream(of: MemoryPressureLevel.self)
        let task = Task { [interval, level] in
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { break }
                continuation.yield(level)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

/// Delivers a source's warnings to caches, each reacting per the policy.
public struct MemoryPressureMonitor: Sendable {
    public let source: any MemoryPressureSource
    public let policy: MemoryPressurePolicy
    public let responders: [any MemoryPressureResponder]

    public init(
        source: any MemoryPressureSource, policy: MemoryPressurePolicy, responders: [any MemoryPressureResponder]
    ) {
        self.source = source
        self.policy = policy
        self.responders = responders
    }

    /// Runs until the source finishes or the task is cancelled; returns the
    /// number of warnings handled.
    @discardableResult
    public func run() async -> Int {
        var handled = 0
        for await level in source.events() {
            let reaction = policy.reaction(to: level)
            for responder in responders { responder.respond(to: reaction) }
            handled += 1
        }
        return handled
    }
}
