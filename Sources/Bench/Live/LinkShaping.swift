import CacheSimulation
import Foundation
import OriginServer

/// How a live replay puts a phone's network between the pipeline and the loopback origin, so
/// that live is timed on the network its simulated model is. The origin adds the round trips
/// (`EmulatedLink`: one before each answer, two more on a new connection) and listens once per
/// host of the trace, so the client keeps the profile's connections per host as an app does.
/// The downlink is the origin's pacing of its bodies (`.origin`, anywhere), or the kernel's:
/// `tbf` on the loopback of a network namespace of the replay's own (`.kernel`, as root), real
/// TCP sharing a real queue.
public struct LinkShaping: Sendable {
    let network: NetworkProfile
    let link: EmulatedLink
    let listeners: Int
    let connectionsPerHost: Int
    let method: Method

    /// Who carries the downlink's rate.
    public enum Method: String, Sendable, CaseIterable {
        case origin, kernel
    }

    /// `hosts`: the trace's authorities, in host id order (`RecordedWorkload.hosts()`).
    init(network: NetworkProfile, hosts: [String], method: Method = .origin) throws {
        guard case .perHost(let connections) = network.connections else {
            throw UsageError("--network \(network.name): the live replay speaks HTTP/1.1 (AsyncHTTPClient uses HTTP/2 only over TLS); give connections=N")
        }
        self.network = network
        self.method = method
        connectionsPerHost = connections
        listeners = max(hosts.count, 1)
        link = EmulatedLink(
            roundTrip: .milliseconds(network.rttMilliseconds),
            hostRoundTrips: (network.hostRoundTrips ?? [:]).mapValues { .milliseconds($0) },
            downlinkBytesPerSecond: method == .origin ? network.downlinkBitsPerSecond / 8 : .infinity,
            perConnectionBytesPerSecond: network.perConnectionBytesPerSecond)
    }

    /// What the report names as the way the network was made.
    var description: String {
        switch method {
        case .origin: "the origin paces its answers (round trips, handshakes, one shared downlink), on loopback"
        case .kernel:
            "tbf on the loopback of a network namespace carries the downlink (\(KernelShaping.rate(network)) bit/s of 1,500-byte packets); the origin adds the round trips and handshakes"
        }
    }
}

/// `.kernel` shaping: the replay runs again inside a new network namespace whose loopback has
/// 1,500-byte packets and a token bucket at the profile's downlink. The bucket counts whole
/// frames both ways on the one loopback, so its rate carries the payload's share: 1,448 bytes of
/// a 1,514-byte frame, and an ACK of 66 for every two. Its burst is a packet, or 2 ms of the
/// rate where that is more (with less, the qdisc's timer loses rate): a bucket that fills while
/// a connection waits for its round trip would pass a small picture at once.
enum KernelShaping {
    /// Set in the replay that runs inside the namespace.
    static let marker = "IMAGECACHE_BENCH_SHAPED_NAMESPACE"

    /// Whether this process is that replay.
    static var isInside: Bool { ProcessInfo.processInfo.environment[marker] != nil }

    /// The token bucket's rate, in bits a second of whole packets.
    static func rate(_ network: NetworkProfile) -> Int {
        Int((network.downlinkBitsPerSecond * (2 * 1_514 + 66) / (2 * 1_448)).rounded())
    }

    /// Runs this command again, with the same arguments, inside a new network namespace shaped
    /// to `network`; its output is this one's. Throws when the namespace cannot be made (not
    /// root, no `unshare`, `ip` or `tc`) or the replay inside fails.
    static func runInside(_ network: NetworkProfile) throws {
        guard getuid() == 0 else { throw UsageError("--shaping kernel makes a network namespace, which needs root; use --shaping origin") }
        for tool in ["unshare", "ip", "tc"] where !Self.onPath(tool) {
            throw UsageError("--shaping kernel needs \(tool) (util-linux, iproute2), which is not on PATH; use --shaping origin")
        }
        let burst = max(1_600, rate(network) / 8 / 500)
        let setup = "ip link set lo up mtu 1500 && tc qdisc add dev lo root tbf rate \(rate(network))bit burst \(burst) latency 30s && exec \"$0\" \"$@\""
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["unshare", "--net", "sh", "-c", setup, CommandLine.arguments[0]] + CommandLine.arguments.dropFirst()
        process.environment = ProcessInfo.processInfo.environment.merging([marker: "1"]) { $1 }
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failed(status: process.terminationStatus) }
    }

    private static func onPath(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
        }
    }

    /// The replay inside the namespace failed; it said why on standard error.
    struct Failed: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "replay --shaping kernel: the replay inside the network namespace exited \(status)" }
    }
}
