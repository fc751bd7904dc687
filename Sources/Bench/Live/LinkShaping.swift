import CacheSimulation
import OriginServer

/// How a live replay puts a phone's network between the pipeline and the loopback origin, so
/// that live is timed on the network its simulated model is: the origin paces its own answers
/// (`EmulatedLink`), a round trip before each, two more on a new connection, and one downlink
/// shared by every body; it listens once per host of the trace, so the client keeps the
/// profile's connections per host as an app does.
struct LinkShaping: Sendable {
    let network: NetworkProfile
    let link: EmulatedLink
    let listeners: Int
    let connectionsPerHost: Int

    /// What the report names as the way the network was made.
    static let method = "the origin paces its answers (round trips, handshakes, one shared downlink), on loopback"

    /// `hosts`: the trace's authorities, in host id order (`RecordedWorkload.hosts()`).
    init(network: NetworkProfile, hosts: [String]) throws {
        guard case .perHost(let connections) = network.connections else {
            throw UsageError("--network \(network.name): the live replay speaks HTTP/1.1 (AsyncHTTPClient uses HTTP/2 only over TLS); give connections=N")
        }
        self.network = network
        connectionsPerHost = connections
        listeners = max(hosts.count, 1)
        link = EmulatedLink(
            roundTrip: .milliseconds(network.rttMilliseconds),
            hostRoundTrips: (network.hostRoundTrips ?? [:]).mapValues { .milliseconds($0) },
            downlinkBytesPerSecond: network.downlinkBitsPerSecond / 8,
            perConnectionBytesPerSecond: network.perConnectionBytesPerSecond)
    }
}
