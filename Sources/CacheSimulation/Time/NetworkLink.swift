import DequeModule

/// Transfers over one downlink on the simulator's clock (nanoseconds): each waits for a
/// connection to its host, a handshake when the connection is new (TCP and TLS 1.3, two round
/// trips), a round trip for its request, then shares the downlink equally with every transfer
/// whose bytes are flowing, each capped by what loss allows one connection. With a request
/// timeout, a transfer whose first byte is not back that long after it was asked for fails then,
/// queued or waiting on its connection, which closes. Deterministic: the same transfers at the
/// same times finish at the same times.
struct NetworkLink {
    let profile: NetworkProfile
    let roundTrip: UInt64
    /// By host id: its round trip, the profile's own where it names none for the host.
    private let hostRoundTrips: [UInt64]
    /// The downlink, bytes a nanosecond.
    let capacity: Double
    /// What one connection carries at most under loss, bytes a nanosecond (`NetworkProfile`'s).
    let perConnection: Double
    /// How long a transfer may wait for its first byte (`RequestTimeout`); `.max`: for ever.
    let timeout: UInt64
    private(set) var now: UInt64 = 0
    /// When `served` was last brought up to date; at most `now`.
    private var settled: UInt64 = 0
    /// Bytes each flowing transfer has had since the link last had none flowing: every flowing
    /// transfer has the same rate, so one sum stands for all of them, and a transfer ends when
    /// it reaches the transfer's `finish`.
    private var served = 0.0
    /// Each flowing transfer's rate since `settled`, bytes a nanosecond.
    private var rate = 0.0
    /// When a transfer next starts to flow or ends; nil when the transfers changed since.
    private var nextChange: UInt64?
    /// Transfers with a connection, in the order they connected (a tie ends in that order): their
    /// bytes flow from `flowsFrom`.
    private var active: [Transfer] = []
    /// What `settle` needs of the active transfers, kept as they change.
    private var tally = Tally()
    /// The first `endedCount` are the transfers that ended at `now`, handed out by `nextEnd`
    /// from `endedTaken` on (the array is reused, not emptied).
    private var ended: [Transfer] = []
    private var endedCount = 0
    private var endedTaken = 0
    /// By host id: its connections and the transfers waiting for one, oldest first.
    private var hosts: [Host] = []
    /// The soonest deadline of a transfer waiting for a connection: the front of some host's
    /// queue, as transfers queue in the order they are asked for.
    private var queuedDeadline = UInt64.max
    /// Bytes on the network so far.
    private(set) var bytesCarried = 0

    /// A connection left idle longer than this is closed (servers and URLSession drop idle
    /// keep-alive connections within a minute or two).
    static let idleTimeout: UInt64 = 60_000_000_000

    struct Transfer {
        let id: Int32
        let host: Int32
        let bytes: Int
        /// When it fails unless its first byte is back.
        let deadline: UInt64
        var flowsFrom: UInt64 = 0
        /// The link's `served` at which its last byte is in; infinite until its bytes flow
        /// (from the first moment `settled` reaches `flowsFrom`).
        var finish = Double.infinity
        /// Connected, its first byte would come after its deadline: it fails at the deadline.
        var late = false
        /// Ended without its bytes: timed out.
        var failed = false

        /// When it next changes while it waits for its first byte.
        var wakes: UInt64 { late ? deadline : flowsFrom }
    }

    /// Of some transfers: how many flow, the least `finish` of those, and when the next of the
    /// others starts to flow.
    private struct Tally {
        var flowing = 0
        var leastFinish = Double.infinity
        var nextFlow = UInt64.max

        @inline(__always)
        mutating func add(_ transfer: Transfer) {
            if transfer.finish == .infinity {
                nextFlow = min(nextFlow, transfer.wakes)
            } else {
                flowing &+= 1
                leastFinish = min(leastFinish, transfer.finish)
            }
        }
    }

    private struct Host {
        /// Its transfers with a connection.
        var busy = 0
        /// HTTP/1.1: when each idle connection was last used, most recent last.
        var idleSince: [UInt64] = []
        var queued = Deque<Transfer>()
        /// HTTP/2: when the one connection's handshake ends (nil: none yet), and when its last transfer ended.
        var readyAt: UInt64?
        var lastEnded: UInt64 = 0
    }

    /// `hostNames`: each host id's authority, for the profile's `hostRoundTrips`. `timeout`:
    /// the request timeout, nil for none.
    init(_ profile: NetworkProfile, hostNames: [String] = [], timeout: Duration? = nil) {
        self.profile = profile
        self.timeout = timeout.map { UInt64(clamping: max($0.nanoseconds, 0)) } ?? .max
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
        let deadline = time > .max - timeout ? .max : time + timeout
        let transfer = Transfer(id: Int32(id), host: host, bytes: bytes, deadline: deadline)
        let index = Int(host)
        if index >= hosts.count { hosts += Array(repeating: Host(), count: index + 1 - hosts.count) }
        switch profile.connections {
        case .multiplexed:
            let connection = hosts[index].readyAt.flatMap { ready in
                hosts[index].busy > 0 || time - max(ready, hosts[index].lastEnded) <= Self.idleTimeout ? ready : nil
            }
            let ready = connection ?? time + 2 * roundTrip(of: host)
            hosts[index].readyAt = ready
            connect(transfer, at: max(time, ready))
        case .perHost(let limit):
            // Oldest first: only a host whose oldest idle connection timed out has any to close.
            if let oldest = hosts[index].idleSince.first, time - oldest > Self.idleTimeout {
                hosts[index].idleSince.removeAll { time - $0 > Self.idleTimeout }
            }
            if connected != true, !hosts[index].idleSince.isEmpty {
                hosts[index].idleSince.removeLast()
                connect(transfer, at: time)
            } else if hosts[index].busy < limit {
                connect(transfer, at: connected == false ? time : time + 2 * roundTrip(of: host))
            } else {
                if hosts[index].queued.isEmpty, transfer.deadline < queuedDeadline {
                    queuedDeadline = transfer.deadline
                    nextChange = nil
                }
                hosts[index].queued.append(transfer)
            }
        }
    }

    /// On a connection from `ready`: its request goes out and the first byte is back a round trip later.
    private mutating func connect(_ transfer: Transfer, at ready: UInt64) {
        if !isBusy { settled = now }
        nextChange = nil
        var transfer = transfer
        transfer.flowsFrom = ready + roundTrip(of: transfer.host)
        transfer.late = transfer.flowsFrom > transfer.deadline
        if transfer.flowsFrom <= settled { transfer.finish = served + Double(max(transfer.bytes, 1)) }
        hosts[Int(transfer.host)].busy += 1
        active.append(transfer)
        tally.add(transfer)
    }

    private func roundTrip(of host: Int32) -> UInt64 {
        Int(host) < hostRoundTrips.count ? hostRoundTrips[Int(host)] : roundTrip
    }

    /// Whether a transfer is waiting for its bytes or receiving them.
    var isBusy: Bool { !active.isEmpty }

    /// Runs the clock to `time`, calling `finished` with each transfer that ends by then, in the
    /// order they end, at the time they end (a link without a timeout: none fails).
    mutating func advance(to time: UInt64, finished: (Int, UInt64) -> Void) {
        precondition(timeout == .max, "a link whose transfers can fail hands them out with nextEnd")
        while let end = nextEnd(by: time) { finished(end.id, end.at) }
    }

    /// Runs the clock until the next transfer ends, at most to `time`: that transfer, when it
    /// ended (`now`) and whether it failed (timed out), or nil when none ends by then. Transfers
    /// that end at one moment come one call after another, in the order they connected, then
    /// those that timed out waiting for a connection.
    mutating func nextEnd(by time: UInt64) -> (id: Int, at: UInt64, failed: Bool)? {
        while endedTaken == endedCount {
            // An idle link's clock waits for its next transfer, which starts when it is asked for.
            guard isBusy, now < time else { return nil }
            // Between changes every flowing transfer keeps its rate, so an advance short of the
            // next change only moves the clock: `served` is brought up to date when it comes.
            let change = nextChange ?? settle()
            guard change <= time else {
                now = time
                return nil
            }
            served += rate * Double(change - settled)
            now = change
            settled = change
            nextChange = nil
            takeChange(at: change)
        }
        let (id, failed) = (ended[endedTaken].id, ended[endedTaken].failed)
        endedTaken += 1
        if endedTaken == endedCount { (endedCount, endedTaken) = (0, 0) }
        return (Int(id), now, failed)
    }

    /// At a change, in one pass: the transfers whose first byte is back start to flow, those
    /// whose bytes are all in end and free their connections, and those past their deadline
    /// without a byte fail.
    private mutating func takeChange(at time: UInt64) {
        // Called only once every transfer that ended before has been handed out: `ended` fills from 0.
        let served = served
        var endedCount = 0, tally = Tally()
        let kept = active.withUnsafeMutableBufferPointer { transfers in
            var kept = 0
            for index in 0..<transfers.count {
                if transfers[index].finish == .infinity {
                    if transfers[index].late, transfers[index].deadline <= time {
                        transfers[index].failed = true
                        if endedCount < ended.count { ended[endedCount] = transfers[index] } else { ended.append(transfers[index]) }
                        endedCount &+= 1
                        continue
                    }
                    if transfers[index].flowsFrom <= time { transfers[index].finish = served + Double(max(transfers[index].bytes, 1)) }
                } else if transfers[index].finish - served <= 0.5 {
                    if endedCount < ended.count { ended[endedCount] = transfers[index] } else { ended.append(transfers[index]) }
                    endedCount &+= 1
                    continue
                }
                tally.add(transfers[index])
                if kept != index { transfers[kept] = transfers[index] }
                kept &+= 1
            }
            return kept
        }
        (self.tally, self.endedCount) = (tally, endedCount)
        while active.count > kept { active.removeLast() }
        if tally.flowing == 0 { self.served = 0 }
        // Those queued past their deadline fail before a connection freed now could take them;
        // they follow in `ended` the `endedCount` here, which had connections to free.
        if queuedDeadline <= time { timeOutQueued(at: time) }
        for index in 0..<endedCount {
            if ended[index].failed {
                release(ended[index].host, closing: true)
            } else {
                bytesCarried += ended[index].bytes
                release(ended[index].host)
            }
        }
    }

    /// The transfers still waiting for a connection at their deadline fail: handed out after
    /// those that ended at `time`.
    private mutating func timeOutQueued(at time: UInt64) {
        queuedDeadline = .max
        for index in hosts.indices {
            while let first = hosts[index].queued.first, first.deadline <= time {
                var transfer = hosts[index].queued.removeFirst()
                transfer.failed = true
                if endedCount < ended.count { ended[endedCount] = transfer } else { ended.append(transfer) }
                endedCount &+= 1
            }
            if let first = hosts[index].queued.first { queuedDeadline = min(queuedDeadline, first.deadline) }
        }
    }

    /// The rate of each flowing transfer from `settled`, and when the next one starts to flow
    /// or ends: returns that time.
    private mutating func settle() -> UInt64 {
        rate = tally.flowing == 0 ? 0 : min(capacity / Double(tally.flowing), perConnection)
        var next = min(tally.nextFlow, queuedDeadline)
        if rate > 0 { next = min(next, settled &+ Self.nanoseconds(roundingUp: (tally.leastFinish - served) / rate)) }
        nextChange = next
        return next
    }

    /// `value` rounded up to a whole nanosecond, without a call into the maths library.
    @inline(__always)
    private static func nanoseconds(roundingUp value: Double) -> UInt64 {
        guard value < 1.8e19 else { return .max / 2 }
        let whole = UInt64(value)
        return Double(whole) < value ? whole + 1 : whole
    }

    /// The app's process ended: its connections close and its transfers stop, unfinished.
    mutating func processEnded() {
        nextChange = nil
        active.removeAll()
        (endedCount, endedTaken) = (0, 0)
        served = 0
        tally = Tally()
        hosts.removeAll()
        queuedDeadline = .max
    }

    /// A transfer ended: its connection takes the host's next queued transfer, or goes idle.
    /// `closing`: it timed out on its connection, which closes (HTTP/1.1 cannot take a request
    /// back), so the next transfer opens another; over HTTP/2 only its stream stops.
    private mutating func release(_ host: Int32, closing: Bool = false) {
        let index = Int(host)
        hosts[index].busy -= 1
        guard case .perHost = profile.connections else {
            hosts[index].lastEnded = now
            return
        }
        if !hosts[index].queued.isEmpty {
            let next = hosts[index].queued.removeFirst()
            if timeout != .max, next.deadline == queuedDeadline { recomputeQueuedDeadline() }
            connect(next, at: closing ? now + 2 * roundTrip(of: host) : now)
        } else if !closing {
            hosts[index].idleSince.append(now)
        }
    }

    private mutating func recomputeQueuedDeadline() {
        queuedDeadline = hosts.reduce(UInt64.max) { min($0, $1.queued.first?.deadline ?? .max) }
    }
}
