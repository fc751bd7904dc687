import Foundation
import ImagePipeline
import Synchronization

/// A run of a plain trace's requests as its reader interned them: the fingerprints of the
/// keys first seen in it (their ids follow those of the chunks before), and its requests'
/// columns (a plain request's cost and size are one weight, as in `SimulationTrace`).
public struct PlainTraceChunk: Sendable {
    public var newFingerprints: [UInt64] = []
    public var keys: [TraceKey] = []
    public var weights: [Int] = []
    public var times: [UInt64] = []

    public init() {}

    public var count: Int { keys.count }

    mutating func reserve(_ requests: Int) {
        keys.reserveCapacity(requests)
        weights.reserveCapacity(requests)
        times.reserveCapacity(requests)
    }

    /// The whole trace, when this chunk is all of it.
    func trace() -> SimulationTrace {
        var trace = SimulationTrace()
        trace.load(fingerprints: newFingerprints, keys: keys, costs: weights, sizes: weights, times: times)
        return trace
    }
}

/// A plain trace simulated while it is read. A thread of its own reads and interns the file a
/// chunk at a time; each run walks the chunks as they come (`Cursor`), so reading overlaps the
/// runs, and a chunk is freed once every run has passed it. With one run the reader stays at
/// most `chunksAhead` chunks ahead of it, so the run holds a few chunks, not the trace; with
/// several (which a matrix may run a few at a time) the reader never waits, and the chunks the
/// slowest run has not reached stay. The runs take the same steps as on a `SimulationTrace` read
/// whole (`CacheSimulator.run(_:_:)` on a cursor), so their figures are the same.
public final class PlainTraceStream: Sendable {
    public let name: String
    private let head: Locked<Link?>
    private let ended: Ending
    private let credits: Credits
    /// How far the reader may run ahead of a stream's one run.
    public static let chunksAhead = 8

    /// Starts reading at once: `read` is called on a thread of its own with a function that
    /// publishes each chunk; what it throws ends the stream and is what `finished()` throws.
    public init(name: String, read: @escaping @Sendable (_ publish: (PlainTraceChunk) -> Void) throws -> Void) {
        self.name = name
        let credits = Credits(Self.chunksAhead)
        self.credits = credits
        let first = Link(credits)
        head = Locked(first)
        let ended = Ending()
        self.ended = ended
        // The reader holds only the last place, so it keeps no chunk the runs have passed.
        let tail = Tail(first)
        let thread = Thread {
            do {
                try read { chunk in
                    credits.take()
                    tail.resolve(.chunk(chunk, next: Link(credits)))
                }
                tail.resolve(.end)
            } catch {
                tail.resolve(.failed(error))
                ended.failure.withLock { $0 = error }
            }
            ended.done.signal()
        }
        thread.start()
    }

    /// `count` cursors at the start of the stream: one per run, each made before any chunk
    /// can be freed. Asked for once; later calls get none (the start is gone).
    public func cursors(_ count: Int) -> [Cursor] {
        guard let first = head.withLock({ link -> Link? in defer { link = nil }; return link }) else { return [] }
        // Several runs may not all be running at once: a reader waiting for the last of them
        // could wait for ever.
        if count != 1 { credits.unbound() }
        return Array(repeating: Cursor(link: first), count: count)
    }

    /// Waits for the reader to finish; throws what it threw (a malformed record at file:line,
    /// an unreadable file). Until this returns, a run's figures may cover only part of the trace.
    public func finished() throws {
        ended.done.wait()
        if let failure = ended.failure.withLock({ $0 }) { throw failure }
    }

    /// One run's place in the stream.
    public struct Cursor: Sendable {
        fileprivate var link: Link

        /// The next chunk, waiting for the reader when the run has caught up; nil at the end
        /// of the trace or when reading failed (which `finished()` reports).
        public mutating func next() -> PlainTraceChunk? {
            switch link.wait() {
            case .chunk(let chunk, let next):
                link = next
                return chunk
            case .end, .failed, .pending:
                return nil
            }
        }
    }
}

/// How the reader ended: done once it has, with what it threw, if anything.
private final class Ending: Sendable {
    let done = Link.Ready()
    let failure = Locked<(any Error)?>(nil)
}

/// The chunks the reader may publish before a run has passed earlier ones.
private final class Credits: Sendable {
    private let semaphore: DispatchSemaphore
    private let bounded = Atomic(true)

    init(_ count: Int) { semaphore = DispatchSemaphore(value: count) }

    func take() { if bounded.load(ordering: .acquiring) { semaphore.wait() } }
    func give() { semaphore.signal() }

    /// From now on the reader never waits (and one waiting now goes on).
    func unbound() {
        bounded.store(false, ordering: .releasing)
        semaphore.signal()
    }
}

/// The reader's end of a stream: the place it fills next.
private final class Tail: Sendable {
    private let link: Locked<Link>

    init(_ link: Link) { self.link = Locked(link) }

    /// Fills the place; a chunk moves the tail on to the place it brings.
    func resolve(_ state: Link.State) {
        link.withLock { current in
            current.resolve(state)
            if case .chunk(_, let next) = state { current = next }
        }
    }
}

/// One place in a stream's list: pending until the reader resolves it with a chunk (and the
/// place after it), the end, or a failure.
private final class Link: Sendable {
    enum State: Sendable {
        case pending
        case chunk(PlainTraceChunk, next: Link)
        case end
        case failed(any Error)
    }

    /// Set once; waited for by any number of threads.
    final class Ready: Sendable {
        private let group = DispatchGroup()

        init() { group.enter() }
        func signal() { group.leave() }
        func wait() { group.wait() }
    }

    private let state = Locked(State.pending)
    private let ready = Ready()
    private let credits: Credits

    init(_ credits: Credits) { self.credits = credits }

    /// Every run has passed this place (or none will come): the reader may read one more chunk.
    deinit { credits.give() }

    func resolve(_ resolved: State) {
        state.withLock { $0 = resolved }
        ready.signal()
    }

    func wait() -> State {
        ready.wait()
        return state.withLock { $0 }
    }
}
