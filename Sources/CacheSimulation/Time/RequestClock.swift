/// Time to image on the simulator's clock, request by request: a memory hit takes none; a disk
/// hit its read and its decode; an origin miss its transfer on the `NetworkLink` and its decode;
/// a join waits for the thumbnail it joined. Decodes queue for the device's decode width.
/// Requests arrive at their trace times. The tiers' decisions are the simulator's; the clock
/// times them.
struct RequestClock {
    var link: NetworkLink
    let costs: DeviceCosts
    /// When each of the decode queue's places is next free.
    private var decodeFreeAt: [UInt64]
    /// Downloads on the link by their original's disk key, with who waits for them.
    private var downloads: [Download?]
    /// Thumbnails not made yet, by memory key: in a download, or ready at a known time.
    private var pending: [Pending?]
    private(set) var times = TimeToImageRecorder()
    /// The transfers an advance of the link ended, kept between requests so none allocates.
    private var ended: [(original: Int, at: UInt64)] = []

    struct Download {
        var waiters: [Waiter] = []
    }

    struct Waiter {
        let key: TraceKey
        let arrival: UInt64
        let decode: UInt64
        let tier: TimeToImage.Tier
        /// Requests that joined this thumbnail, by arrival.
        var joined: [UInt64] = []
    }

    enum Pending {
        case downloading(original: TraceKey, waiter: Int)
        case readyAt(UInt64)
    }

    init(network: NetworkProfile, costs: DeviceCosts, keys: Int, diskKeys: Int) {
        link = NetworkLink(network)
        downloads = Array(repeating: nil, count: diskKeys)
        pending = Array(repeating: nil, count: keys)
        self.costs = costs
        decodeFreeAt = Array(repeating: 0, count: max(costs.decodeWidth, 1))
    }

    /// Everything due by `time` happens first.
    mutating func advance(to time: UInt64) {
        guard time > link.now else { return }
        link.advance(to: time) { ended.append(($0, $1)) }
        landEnded()
    }

    mutating func memoryHit() { times.record(.memory, 0) }

    mutating func diskHit(_ key: TraceKey, bytes: Int, cost: Int, at arrival: UInt64) {
        let read = costs.diskReadNanoseconds(bytes: bytes)
        let ready = decoded(from: arrival + read, taking: costs.decodeNanoseconds(encodedBytes: bytes, decodedBytes: cost))
        times.record(.disk, ready - arrival)
        pending[Int(key)] = .readyAt(ready)
    }

    /// An origin miss: a new transfer of its original, or a place in one on the link already.
    mutating func originMiss(_ key: TraceKey, original: TraceKey, host: Int32, bytes: Int, cost: Int, at arrival: UInt64) {
        let waiter = Waiter(key: key, arrival: arrival, decode: costs.decodeNanoseconds(encodedBytes: bytes, decodedBytes: cost), tier: .origin)
        let slot = Int(original)
        if downloads[slot] == nil {
            downloads[slot] = Download()
            link.start(slot, host: host, bytes: bytes, at: max(arrival, link.now))
        }
        downloads[slot]!.waiters.append(waiter)
        pending[Int(key)] = .downloading(original: original, waiter: downloads[slot]!.waiters.count - 1)
    }

    /// A memory miss for a thumbnail being made: it waits for it.
    mutating func joined(_ key: TraceKey, at arrival: UInt64) {
        switch pending[Int(key)] {
        case .downloading(let original, let waiter)?:
            downloads[Int(original)]?.waiters[waiter].joined.append(arrival)
        case .readyAt(let ready)?:
            times.record(.joined, ready > arrival ? ready - arrival : 0)
        case nil:
            times.record(.joined, 0)
        }
    }

    /// The app's process ended (a relaunch, another device): what it was still loading is never
    /// shown; its thumbnails being decoded are lost with it.
    mutating func processEnded(at time: UInt64) {
        advance(to: time)
        for index in downloads.indices {
            guard let download = downloads[index] else { continue }
            times.neverShown += download.waiters.reduce(0) { $0 + 1 + $1.joined.count }
            downloads[index] = nil
        }
        for index in pending.indices { pending[index] = nil }
        link.processEnded()
    }

    /// The end of the run: every transfer finishes.
    mutating func finish() -> TimeToImage {
        link.drain { ended.append(($0, $1)) }
        landEnded()
        return times.summary(network: link.profile, networkBytes: link.bytesCarried)
    }

    private mutating func landEnded() {
        guard !ended.isEmpty else { return }
        for (original, at) in ended { downloaded(TraceKey(original), at: at) }
        ended.removeAll(keepingCapacity: true)
    }

    private mutating func downloaded(_ original: TraceKey, at time: UInt64) {
        guard let download = downloads[Int(original)] else { return }
        downloads[Int(original)] = nil
        for waiter in download.waiters {
            let ready = decoded(from: time, taking: waiter.decode)
            times.record(waiter.tier, ready - waiter.arrival)
            for arrival in waiter.joined { times.record(.joined, ready - arrival) }
            pending[Int(waiter.key)] = .readyAt(ready)
        }
    }

    /// When a decode that can start at `ready` ends, at the first free place of the queue.
    private mutating func decoded(from ready: UInt64, taking duration: UInt64) -> UInt64 {
        var place = 0
        for index in decodeFreeAt.indices where decodeFreeAt[index] < decodeFreeAt[place] { place = index }
        let end = max(ready, decodeFreeAt[place]) + duration
        decodeFreeAt[place] = end
        return end
    }
}
