import Foundation

/// The network between the app and its image hosts, as the simulator's clock uses it: a round
/// trip, a downlink shared by every transfer in flight, random loss, and how connections are
/// pooled per host.
public struct NetworkProfile: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name a preset is asked for by, or "custom".
    public var name: String
    /// Round-trip time, milliseconds.
    public var rttMilliseconds: Double
    /// Downlink, bits a second.
    public var downlinkBitsPerSecond: Double
    /// Share of packets lost, 0 to 1: caps each connection's throughput (Mathis et al.).
    public var loss: Double
    public var connections: ConnectionPooling
    /// Where the figures come from.
    public var source: String
    /// Round trips of particular hosts (a URL's authority), milliseconds, in place of
    /// `rttMilliseconds`: a recording's hosts lie at their own distances (`RecordedNetwork`).
    public var hostRoundTrips: [String: Double]?

    public enum ConnectionPooling: Sendable, Hashable, Codable, CustomStringConvertible {
        /// HTTP/1.1: at most this many connections to a host, one transfer on each at a time.
        case perHost(Int)
        /// HTTP/2: one connection to a host, every transfer multiplexed on it.
        case multiplexed

        public var description: String {
            switch self {
            case .perHost(let count): "http/1.1 ×\(count)"
            case .multiplexed: "http/2"
            }
        }
    }

    public init(name: String, rttMilliseconds: Double, downlinkBitsPerSecond: Double, loss: Double = 0,
                connections: ConnectionPooling = .perHost(NetworkProfile.urlSessionConnectionsPerHost), source: String) {
        self.name = name
        self.rttMilliseconds = rttMilliseconds
        self.downlinkBitsPerSecond = downlinkBitsPerSecond
        self.loss = loss
        self.connections = connections
        self.source = source
    }

    /// What one connection carries at most under loss, bytes a second (Mathis et al. 1997:
    /// MSS / RTT · √(3/2) / √p); infinite without loss.
    public var perConnectionBytesPerSecond: Double {
        loss > 0 && rttMilliseconds > 0
            ? Self.segmentBytes / (rttMilliseconds / 1_000) * (1.5).squareRoot() / loss.squareRoot() : .infinity
    }

    /// A TCP segment's payload on an Ethernet-sized path.
    static let segmentBytes = 1_460.0

    /// `URLSessionConfiguration.httpMaximumConnectionsPerHost`'s default on iOS, as Apple
    /// documents it (6 on macOS).
    public static let urlSessionConnectionsPerHost = 4

    public var description: String {
        let down = downlinkBitsPerSecond >= 1e6
            ? "\(Self.figure(downlinkBitsPerSecond / 1e6)) Mbit/s" : "\(Self.figure(downlinkBitsPerSecond / 1e3)) kbit/s"
        let hosts = hostRoundTrips.map { ", \($0.count) hosts at their own round trips" } ?? ""
        return "\(name) (\(Self.figure(rttMilliseconds)) ms\(hosts), \(down)\(loss > 0 ? ", \(Self.figure(loss * 100)) % loss" : ""), \(connections))"
    }

    private static func figure(_ value: Double) -> String { String(format: "%g", value) }

    /// The named presets, each with its source.
    public static let presets: [NetworkProfile] = [
        NetworkProfile(name: "slow-4g", rttMilliseconds: 150, downlinkBitsPerSecond: 1.6 * 1024 * 1000,
                       source: "Lighthouse throttling.mobileSlow4G, its default mobile profile (Lantern: 150 ms, 1.6×1024 kbit/s)"),
        NetworkProfile(name: "regular-3g", rttMilliseconds: 300, downlinkBitsPerSecond: 700 * 1024,
                       source: "Lighthouse throttling.mobileRegular3G (300 ms, 700×1024 bit/s)"),
        NetworkProfile(name: "3g", rttMilliseconds: 300, downlinkBitsPerSecond: 1.6e6,
                       source: "WebPageTest connectivity 3G (1.6 Mbps/768 Kbps, 300 ms RTT)"),
        NetworkProfile(name: "3g-fast", rttMilliseconds: 150, downlinkBitsPerSecond: 1.6e6,
                       source: "WebPageTest connectivity 3GFast (1.6 Mbps/768 Kbps, 150 ms RTT)"),
        NetworkProfile(name: "4g", rttMilliseconds: 170, downlinkBitsPerSecond: 9e6,
                       source: "WebPageTest connectivity 4G (9 Mbps/9 Mbps, 170 ms RTT)"),
        NetworkProfile(name: "lte", rttMilliseconds: 70, downlinkBitsPerSecond: 12e6,
                       source: "WebPageTest connectivity LTE (12 Mbps/12 Mbps, 70 ms RTT)"),
        NetworkProfile(name: "cable", rttMilliseconds: 28, downlinkBitsPerSecond: 5e6,
                       source: "WebPageTest connectivity Cable (5/1 Mbps, 28 ms RTT)"),
        NetworkProfile(name: "wifi", rttMilliseconds: 40, downlinkBitsPerSecond: 10 * 1024 * 1000,
                       source: "Lighthouse's desktop broadband throttling (40 ms, 10×1024 kbit/s), standing for home Wi-Fi"),
    ]

    /// The network the suite and `apps` time their runs on unless told: Lighthouse's default
    /// mobile profile, the first preset.
    public static var suiteDefault: NetworkProfile { presets[0] }

    /// A preset by name, or the custom form `rtt=150,down=1.6mbit[,loss=0.01][,connections=6|h2]`
    /// (rtt in ms; down in bit/s with an optional k, m or g and an optional "bit" or "bps").
    public init(parsing text: String) throws(NetworkProfileError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if let preset = Self.presets.first(where: { $0.name == trimmed }) {
            self = preset
            return
        }
        guard trimmed.contains("=") else { throw .unknownPreset(text) }
        var rtt: Double?, down: Double?, loss = 0.0, pooling = ConnectionPooling.perHost(Self.urlSessionConnectionsPerHost)
        var seen: Set<String> = []
        for field in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
            let parts = field.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw .malformed(String(field)) }
            let (name, value) = (parts[0], parts[1])
            guard seen.insert(name).inserted else { throw .repeated(name) }
            switch name {
            case "rtt":
                let number = value.hasSuffix("ms") ? String(value.dropLast(2)) : value
                guard let milliseconds = Double(number), milliseconds.isFinite, (0...60_000).contains(milliseconds) else {
                    throw .outOfRange(field: "rtt", value: value, range: "0 to 60000 ms")
                }
                rtt = milliseconds
            case "down":
                guard let bits = Self.bitsPerSecond(value), bits >= 1_000, bits <= 100e9 else {
                    throw .outOfRange(field: "down", value: value, range: "1kbit to 100gbit a second")
                }
                down = bits
            case "loss":
                guard let share = Double(value), share.isFinite, (0..<0.5).contains(share) else {
                    throw .outOfRange(field: "loss", value: value, range: "0 up to 0.5 (a share of packets)")
                }
                loss = share
            case "connections":
                if value == "h2" || value == "http2" { pooling = .multiplexed; break }
                guard let count = Int(value), (1...64).contains(count) else {
                    throw .outOfRange(field: "connections", value: value, range: "1 to 64 per host, or h2")
                }
                pooling = .perHost(count)
            default:
                throw .unknownField(name)
            }
        }
        guard let rtt else { throw .missing("rtt") }
        guard let down else { throw .missing("down") }
        self.init(name: "custom", rttMilliseconds: rtt, downlinkBitsPerSecond: down, loss: loss, connections: pooling,
                  source: "given as \(text)")
    }

    /// "1.6mbit", "700k", "12mbps", "5000000": bits a second.
    private static func bitsPerSecond(_ text: String) -> Double? {
        var text = text
        for suffix in ["bps", "bit/s", "bit"] where text.hasSuffix(suffix) {
            text.removeLast(suffix.count)
            break
        }
        let scale: Double
        switch text.last {
        case "k": scale = 1e3
        case "m": scale = 1e6
        case "g": scale = 1e9
        default: scale = 1
        }
        if scale != 1 { text.removeLast() }
        guard let number = Double(text), number.isFinite, number > 0 else { return nil }
        return number * scale
    }
}

/// Why `--network` was refused.
public enum NetworkProfileError: Error, Equatable, CustomStringConvertible {
    case unknownPreset(String)
    case malformed(String)
    case repeated(String)
    case unknownField(String)
    case missing(String)
    case outOfRange(field: String, value: String, range: String)

    public var description: String {
        switch self {
        case .unknownPreset(let name):
            "unknown network \"\(name)\"; choose from \(NetworkProfile.presets.map(\.name).joined(separator: ", ")), or rtt=…,down=…[,loss=…][,connections=…]"
        case .malformed(let field): "\"\(field)\" is not name=value"
        case .repeated(let name): "\(name) is given more than once"
        case .unknownField(let name): "unknown field \"\(name)\"; the fields are rtt, down, loss and connections"
        case .missing(let name): "a custom network needs \(name)="
        case .outOfRange(let field, let value, let range): "\(field) must be \(range), not \(value)"
        }
    }
}
