import DequeModule

/// Transfers over one downlink on the simulator's clock (nanoseconds): each waits for a
/// connection to its host, a handshake when the connection is new (TCP and TLS 1.3, two round
/// trips), a round trip for its request, then shares the downlink equally with every transfer
/// whose bytes are flowing, each capped by what loss allows one connection. Deterministic: the
/// same transfers at the same times finish at the same times.
struct NetworkLink {
    let profile: NetworkProfile
    let roundTrip: UInt64
    /// By host id: its round trip, the profile's own where it names none for the host.
    private let hostRoundTrips: [UInt64]
    /// The downlink, bytes a nanosecond.
    let capacity: Double
    /// What one connection carries at most under loss, bytes a nanosecond (`NetworkProfile`'s).
    let perConnection: Double
    private(set) var now: UInt64 = 0
    /// When the flowing transfers' `remaining` bytes were last brought up to date; at most `now`.
    private var settled: UInt64 = 0
    /// Each flowing transfer's rate since `settled`, bytes a nanosecond.
    private var rate = 0.0
    /// When a transfer next starts to flow or ends; nil when the transfers changed since.
    private var nextChange: UInt64?
    /// Transfers with a connection: their bytes flow from `flowsFrom`.
    private var active: [Transfer] = []
    /// By host id: its connections and the transfers waiting for one, oldest first.
    private var hosts: [Host] = []
    /// Bytes on the network so far.
    private(set) var bytesCarried = 0

    /// A connection left idle longer than this is closed (servers and URLSession drop idle
    /// keep-alive connections within a minute or two).
    static let idleTimeout: UInt64 = 60_000_000_000

    struct Transfer {
        let id: Int
        let host: Int32
        let bytes: Int
        var remaining: Double
        var flowsFrom: UInt64
    }

    private struct Host {
        /// HTTP/1.1: when each idle connection was last used, most recent last.
        var idleSince: [UInt64] = []
        var queued = Deque<Transfer>()
        /// HTTP/2: when the one connection's handshake ends (nil: none yet), and when its last transfer ended.
        var readyAt: UInt64?
        var lastEnded: UInt64 = 0
    }

    /// `hostNames`: each host id's authority, for the profile's `hostRoundTrips`.
    init(_ profile: NetworkProfile, hostNames: [String] = []) {
        self.profile = profile
        roundTrip = UInt64(profile.rttMilliseconds * 1_000_000)
        let named = profile.hostRoundTrips ?? [:]
        hostRoundTrips = named.isEmpty ? [] : hostNames.map { UInt64((named[$0] ?? profile.rttMilliseconds) * 1_000_000) }
        capacity = profile.downlinkBitsPerSecond / 8 / 1e9
        perConnection = profile.perConnectionBytesPerSecond / 1e9
    }

    /// Asks for `bytes` from `host` at `time` (not before the link's `now`); `id` names it when it finishes.
    /// `connected`, over HTTP/1.1: true opens a connection for it, false sends it on one already open
    /// (a recording's own account, `RecordedNetwork`); nil takes an idle one if there is one.
    mutating func start(_ id: Int, host: Int32, bytes: Int, at time: UInt64, connected: Bool? = nil) {
        precondition(time >= now, "the link's clock runs forward")
        let transfer = Transfer(id: id, host: host, bytes: bytes, remaining: Double(max(bytes, 1)), flowsFrom: time)
        let index = Int(host)
        if index >= hosts.count { hosts += Array(repeating: Host(), count: index + 1 - hosts.count) }
        switch profile.connections {
        case .multiplexed:
            let connection = hosts[index].readyAt.flatMap { ready in
                active.contains { $0.host == host } || time - max(ready, hosts[index].lastEnded) <= Self.idleTimeout ? ready : nil
            }
            let ready = connection ?? time + 2 * roundTrip(of: host)
            hosts[index].readyAt = ready
            connect(transfer, at: max(time, ready))
        case .perHost(let limit):
            // Oldest first: only a host whose oldest idle connection timed out has any to close.
            if let oldest = hosts[index].idleSince.first, time - oldest > Self.idleTimeout {
                hosts[index].idleSince.removeAll { time - $0 > Self.idleTimeout }
            }
            let open = active.count(where: { $0.host == host }) < limit
            if connected != true, hosts[index].idleSince.popLast() != nil {
                connect(transfer, at: time)
            } else if open {
                connect(transfer, at: connected == false ? time : time + 2 * roundTrip(of: host))
            } else {
                hosts[index].queued.append(transfer)
            }
        }
    }

    /// On a connection from `ready`: its request goes out and the first byte is back a round trip later.
    private mutating func connect(_ transfer: Transfer, at ready: UInt64) {
        if active.isEmpty { settled = now }
        nextChange = nil
        var transfer = transfer
        transfer.flowsFrom = ready + roundTrip(of: transfer.host)
        active.append(transfer)
    }

    private func roundTrip(of host: Int32) -> UInt64 {
        Int(host) < hostRoundTrips.count ? hostRoundTrips[Int(host)] : roundTrip
    }

    /// Whether a transfer is waiting for its bytes or receiving them.
    var isBusy: Bool { !active.isEmpty }

    /// Runs the clock to `time`, calling `finished` with each transfer that ends by then, in the
    /// order they end, at the time they end (`now` during the call); with `stoppingAtAnEnd`, only
    /// until the first moment a transfer ends.
    mutating func advance(to time: UInt64, stoppingAtAnEnd: Bool = false, finished: (Int, UInt64) -> Void) {
        guard !active.isEmpty else {
            now = max(now, time)
            return
        }
        while now < time {
            // Between changes every flowing transfer keeps its rate, so an advance short of the
            // next change only moves the clock: the bytes are settled when the change comes.
            let change = nextChange ?? settle()
            guard change <= time else {
                now = time
                return
            }
            let elapsed = Double(change - settled)
            for index in active.indices where active[index].flowsFrom <= settled {
                active[index].remaining -= rate * elapsed
            }
            now = change
            settled = change
            nextChange = nil
            // Ends, in the order the transfers were asked for (a tie ends in asking order).
            var index = 0, ended = false
            while index < active.count {
                let transfer = active[index]
                guard transfer.flowsFrom <= now, transfer.remaining <= 0.5 else { index += 1; continue }
                active.remove(at: index)
                bytesCarried += transfer.bytes
                release(transfer.host)
                finished(transfer.id, now)
                ended = true
            }
            if ended && stoppingAtAnEnd { return }
        }
    }

    /// The rate of each flowing transfer from `settled`, and when the next one starts to flow
    /// or ends: returns that time.
    private mutating func settle() -> UInt64 {
        let flowing = active.count { $0.flowsFrom <= settled }
        rate = flowing == 0 ? 0 : min(capacity / Double(flowing), perConnection)
        var next = UInt64.max
        for transfer in active {
            if transfer.flowsFrom > settled {
                next = min(next, transfer.flowsFrom)
            } else if rate > 0 {
                next = min(next, settled + UInt64((transfer.remaining / rate).rounded(.up)))
            }
        }
        nextChange = next
        return next
    }

    /// The app's process ended: its connections close and its transfers stop, unfinished.
    mutating func processEnded() {
        nextChange = nil
        active.removeAll()
        hosts.removeAll()
    }

    /// A transfer ended: its connection takes the host's next queued transfer, or goes idle.
    private mutating func release(_ host: Int32) {
        let index = Int(host)
        guard case .perHost = profile.connections else {
            hosts[index].lastEnded = now
            return
        }
        if !hosts[index].queued.isEmpty {
            connect(hosts[index].queued.removeFirst(), at: now)
        } else {
            hosts[index].idleSince.append(now)
        }
    }
}
