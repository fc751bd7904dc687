import Foundation
import ImagePipeline

/// A phone's network, emulated by the origin pacing its own responses: where the kernel has
/// no delay queue (`netem`), delay has to come from the origin. Each response waits for its
/// request's round trip, two more on a connection the origin has not seen (TCP and TLS 1.3's
/// handshakes), then its body goes out piece by piece through one downlink that every response
/// shares. The simulator's link (`NetworkLink`) models the same steps.
public struct EmulatedLink: Sendable {
    /// The round trip of a host with none of its own.
    public var roundTrip: Duration
    /// By host name (the `host=` of an image URL): its own round trip.
    public var hostRoundTrips: [String: Duration]
    /// Infinite: the origin does not pace bodies (the kernel carries the rate).
    public var downlinkBytesPerSecond: Double
    /// What one connection carries at most (under loss); infinite for no cap.
    public var perConnectionBytesPerSecond: Double
    /// A connection idle longer than this is closed by its client, so its next request opens a new one.
    public var idleTimeout: Duration

    public init(
        roundTrip: Duration, hostRoundTrips: [String: Duration] = [:], downlinkBytesPerSecond: Double,
        perConnectionBytesPerSecond: Double = .infinity, idleTimeout: Duration = .seconds(60)
    ) {
        self.roundTrip = roundTrip
        self.hostRoundTrips = hostRoundTrips
        self.downlinkBytesPerSecond = downlinkBytesPerSecond
        self.perConnectionBytesPerSecond = perConnectionBytesPerSecond
        self.idleTimeout = idleTimeout
    }

    /// Bytes a body is written in: about 1 ms of the downlink, within 512 B–64 KB. Pieces take
    /// their turns on the downlink in order, so a body of one piece is served whole before the
    /// next: bodies smaller than a piece would go one after another where the simulator's link
    /// (and TCP through a kernel queue) shares the rate among them.
    var pieceBytes: Int { downlinkBytesPerSecond.isFinite ? min(max(Int(downlinkBytesPerSecond / 1_000), 512), 65_536) : 65_536 }

    /// Whether the origin paces bodies at all: an infinite downlink and no cap on a connection
    /// leave the rate to something else (the kernel's queue).
    var pacesBodies: Bool { downlinkBytesPerSecond.isFinite || perConnectionBytesPerSecond.isFinite }
}

/// The emulated link's state while the origin serves: the connections it has seen and when
/// the downlink is next free.
final class PacedDownlink: Sendable {
    let link: EmulatedLink
    /// `Locked`, not a bare `Mutex`: ThreadSanitizer sees its edges (ARCHITECTURE, Conventions).
    private let state = Locked(State())
    /// A body's next piece may start this much before now, so the pacing task's wake-up lag
    /// does not slow a response that has the link to itself.
    private static let slack = Duration.milliseconds(5)

    private struct State {
        var nextFree = ContinuousClock.now
        /// By client port: when the connection last carried a response.
        var connections: [Int: ContinuousClock.Instant] = [:]
    }

    init(_ link: EmulatedLink) { self.link = link }

    /// How long a request on `connection` (the client's port) to `host` waits before the
    /// first byte of its answer: its round trip, and the handshakes when the connection is new.
    func firstByteDelay(connection: Int, host: String?) -> Duration {
        let now = ContinuousClock.now
        let isNew = state.withLock { state in
            let seen = state.connections[connection]
            state.connections[connection] = now
            return seen.map { now - $0 > link.idleTimeout } ?? true
        }
        let roundTrip = host.flatMap { link.hostRoundTrips[$0] } ?? link.roundTrip
        return roundTrip * (isNew ? 3 : 1)
    }

    /// The client's process ended, and its connections with it: the next request on any pays
    /// the handshakes (a client that keeps its sockets, as a replay's does across relaunches,
    /// is charged as one that opens them anew).
    func forgetConnections() {
        state.withLock { $0.connections.removeAll() }
    }

    /// The connection's response ended: it is idle from now.
    func finished(connection: Int) {
        let now = ContinuousClock.now
        state.withLock { $0.connections[connection] = now }
    }

    /// Waits until `bytes` of a body have crossed the downlink, their turn taken after every
    /// piece already reserved; `previousEnd` is when this body's last piece ended (for the cap
    /// on one connection), updated.
    func transmit(_ bytes: Int, previousEnd: inout ContinuousClock.Instant?) async throws {
        guard link.pacesBodies else { return }
        let onLink = Duration.seconds(Double(bytes) / link.downlinkBytesPerSecond)
        let own = link.perConnectionBytesPerSecond.isFinite
            ? Duration.seconds(Double(bytes) / link.perConnectionBytesPerSecond) : .zero
        let end = state.withLock { state in
            let now = ContinuousClock.now
            let start = state.nextFree >= now - Self.slack ? state.nextFree : now
            state.nextFree = start + onLink
            return max(state.nextFree, (previousEnd ?? start) + own)
        }
        previousEnd = end
        try await Task.sleep(until: end, clock: .continuous)
    }
}
