import HeapModule
@_spi(Simulation) import CacheEngine
import ImagePipeline

/// With a network, the in-flight model on the simulator's clock: what is in flight, and when
/// each thumbnail lands, follow from time. A request starts at its trace time, or later when
/// the app already has `limit` requests waiting for images (a join waits too), and never before
/// the request before it. It is timed from its trace time, when the app asked, so a wait for a
/// place counts; once started:
/// - a memory hit takes no time;
/// - a disk hit its read, then its decode;
/// - an origin miss its transfer on the `NetworkLink`, then its decode; another size of a URL
///   asked for while its original downloads shares the transfer;
/// - a miss for a thumbnail in flight joins it and waits for it;
/// - a transfer whose response has not begun by the request timeout fails, and with it every
///   request that shares it or joined one that does.
/// Decodes queue for the device's decode width. The state takes what lands from `next(by:)`, in
/// the order of time: an original on disk when its transfer ends, a thumbnail when it is decoded.
struct RequestClock {
    typealias Landing = InFlightWindow.Landing

    private var link: NetworkLink
    let costs: DeviceCosts
    /// The app's limit on requests waiting for images; 0: none.
    let limit: Int
    /// Whether a miss joins a thumbnail in flight and shares a download (`FetchCoalescing.perWaiter`).
    let coalesces: Bool
    /// Requests arrive as soon as there is a place for them, not at their trace times.
    let backToBack: Bool
    /// When the last thing happened: a request started, or something landed.
    private(set) var now: UInt64 = 0
    /// When the request that started last was asked for, and its index.
    private var arrival: UInt64 = 0
    private var current = 0
    /// Requests waiting for images, joins included.
    private(set) var occupied = 0
    /// Costs of the thumbnails in flight.
    private(set) var pendingCost = 0
    private var times = TimeToImageRecorder()
    /// When each of the decode queue's places is next free.
    private var decodeFreeAt: [UInt64]
    /// Thumbnails in flight.
    private var flights = Slab<Flight>()
    /// Per memory key, its thumbnail in flight (-1: none), when misses join.
    private var flightByKey: [Int32]
    /// Transfers on the link that others share or that store an original, by their id (one that
    /// does neither is named on the link by its flight, `download`).
    private var downloads = Slab<Download>()
    /// Per original's disk key, its transfer (-1: none), when misses share one.
    private var downloadByOriginal: [Int32]
    /// Thumbnails whose ready time is known, soonest first.
    private var ready = Heap<Ready>()
    /// The requests that joined flights, each with when it was asked for and the one that
    /// joined the same flight before it.
    private var joins = Slab<Join>()
    /// Requests whose transfer timed out, handed out by `next(by:)` from `failuresTaken` on.
    private var failures: [Failure] = []
    private var failuresTaken = 0

    /// A request never shown: its transfer timed out; `joined`: it had joined a flight (a hit until then).
    struct Failure: Equatable {
        let index: Int
        let size: Int
        let joined: Bool
    }

    private struct Flight {
        var landing: Landing
        /// When its request was asked for.
        let arrival: UInt64
        let decode: UInt64
        let tier: TimeToImage.Tier
        /// The last request that joined it (in `joins`), or -1: kept apart, so a flight is
        /// plain data and moves without counting references.
        var lastJoin: Int32 = -1
    }

    private struct Join {
        let index: Int
        let arrival: UInt64
        let previous: Int32
        /// The request's bytes, for its account should the flight fail.
        let size: Int
    }

    private struct Download {
        /// The flight that asked for it, and those that share it (kept apart so a download
        /// nobody shares allocates nothing).
        let first: Int32
        var sharing: [Int32] = []
        var original: TraceKey = -1
        /// The request whose original goes to disk when the transfer ends; -1: none does.
        var storesFor = -1
    }

    private struct Ready: Comparable {
        let at: UInt64
        /// The request, so two thumbnails ready at once land in request order.
        let index: Int
        let flight: Int32
        static func < (a: Ready, b: Ready) -> Bool { (a.at, a.index) < (b.at, b.index) }
    }

    /// What lands next.
    enum Event {
        /// Request `index`'s download ended and its original goes to disk.
        case original(index: Int)
        /// A thumbnail is ready, with the time in `now`.
        case thumbnail(Landing)
        /// A request is never shown: its transfer timed out at `now`.
        case failed(Failure)
    }

    init(
        network: NetworkProfile, costs: DeviceCosts, limit: Int, coalesces: Bool, backToBack: Bool = false, keys: Int, diskKeys: Int,
        hostNames: [String] = [], requestTimeout: Duration? = nil
    ) {
        link = NetworkLink(network, hostNames: hostNames, timeout: requestTimeout)
        self.costs = costs
        self.limit = max(limit, 0)
        self.coalesces = coalesces
        self.backToBack = backToBack
        decodeFreeAt = Array(repeating: 0, count: max(costs.decodeWidth, 1))
        flightByKey = coalesces ? Array(repeating: -1, count: keys) : []
        downloadByOriginal = coalesces ? Array(repeating: -1, count: diskKeys) : []
    }

    /// A hint that `key` comes soon: where its flight is noted, for `join`.
    @inline(__always)
    func prefetch(_ key: TraceKey) {
        if coalesces { flightByKey.prefetch(Int(key)) }
    }

    /// A streamed trace's next chunk names `count` keys for the first time.
    mutating func admit(_ count: Int) {
        if coalesces { flightByKey += repeatElement(-1, count: count) }
    }

    /// Whether the next request must wait for something to land first.
    var isFull: Bool { limit > 0 && occupied >= limit }

    /// When a request asked for at `trace` time arrives: then, or back to back, now.
    func arrival(at trace: UInt64) -> UInt64 { backToBack ? now : trace }

    /// Request `index`, which arrived at `arrival`, starts: returns when.
    mutating func start(_ index: Int, at arrival: UInt64) -> UInt64 {
        self.arrival = arrival
        current = index
        now = max(now, arrival)
        times.asked(index, at: arrival)
        return now
    }

    mutating func memoryHit() { times.record(.memory, now - arrival, request: current) }

    /// A memory miss for `key` (a request of `size` bytes) joins its thumbnail in flight, when
    /// there is one: the picture it will show.
    mutating func join(_ key: TraceKey, size: Int) -> (content: Int32, url: Int32)? {
        guard coalesces, case let flight = flightByKey[Int(key)], flight >= 0 else { return nil }
        flights[flight].lastJoin = joins.insert(Join(index: current, arrival: arrival, previous: flights[flight].lastJoin, size: size))
        flights[flight].landing.joiners += 1
        occupied += 1
        return flights[flight].landing.held
    }

    /// A disk hit: read `bytes`, then decode (doing `work`).
    mutating func read(_ landing: Landing, bytes: Int, work: DecodeWork) {
        let decode = costs.decodeNanoseconds(encodedBytes: bytes, decodedBytes: landing.cost, work: work)
        let flight = add(Flight(landing: landing, arrival: arrival, decode: decode, tier: .disk))
        schedule(flight, decodableFrom: now + costs.diskReadNanoseconds(bytes: bytes))
    }

    /// Whether a download of `original` is on its way, for another size of its URL to share.
    func isDownloading(_ original: TraceKey) -> Bool { coalesces && downloadByOriginal[Int(original)] >= 0 }

    /// An origin miss: `bytes` of `original` from `host`, then decode (doing `work`). Returns whether it shared
    /// a transfer already on the link. `storesOriginal`: its original goes to disk when it ends.
    mutating func download(_ landing: Landing, original: TraceKey, host: Int32, bytes: Int, work: DecodeWork, storesOriginal: Bool) -> Bool {
        let decode = costs.decodeNanoseconds(encodedBytes: bytes, decodedBytes: landing.cost, work: work)
        let flight = add(Flight(landing: landing, arrival: arrival, decode: decode, tier: .origin))
        if coalesces, original >= 0, case let shared = downloadByOriginal[Int(original)], shared >= 0 {
            downloads[shared].sharing.append(flight)
            return true
        }
        var download = Download(first: flight)
        download.original = coalesces ? original : -1
        download.storesFor = storesOriginal && original >= 0 ? landing.index : -1
        guard download.original >= 0 || download.storesFor >= 0 else {
            // Nothing else can share it and nothing lands with it but its flight's thumbnail:
            // the transfer is named by its flight (a negative id) and needs no record.
            link.start(-1 - Int(flight), host: host, bytes: bytes, at: max(now, link.now))
            return false
        }
        let id = downloads.insert(download)
        if download.original >= 0 { downloadByOriginal[Int(original)] = id }
        link.start(Int(id), host: host, bytes: bytes, at: max(now, link.now))
        return false
    }

    /// The next thing to land by `time`, at the time it lands (`now`); nil when nothing does.
    /// `time` `.max`: whatever lands next, however late.
    mutating func next(by time: UInt64) -> Event? {
        while true {
            if failuresTaken < failures.count {
                let failure = failures[failuresTaken]
                failuresTaken += 1
                if failuresTaken == failures.count {
                    failures.removeAll(keepingCapacity: true)
                    failuresTaken = 0
                }
                return .failed(failure)
            }
            let soonest = ready.min?.at ?? .max
            if let end = link.nextEnd(by: min(soonest, time)) {
                now = max(now, end.at)
                if end.failed {
                    transferFailed(end.id)
                    continue
                }
                guard let index = transferEnded(end.id, at: end.at) else { continue }
                return .original(index: index)
            }
            guard soonest <= time, let due = ready.popMin() else { return nil }
            now = max(now, due.at)
            return .thumbnail(landed(due.flight, at: due.at))
        }
    }

    /// Every thumbnail in flight, which will never land: the app was ended. Its transfers stop.
    mutating func abandon() -> [Landing] {
        let lost = flights.values.map(\.landing)
        times.neverShown += lost.reduce(0) { $0 + 1 + $1.joiners }
        processEnded()
        return lost
    }

    /// The app's process ended with nothing in flight: its connections close.
    mutating func processEnded() {
        link.processEnded()
        flights.removeAll()
        joins.removeAll()
        downloads.removeAll()
        ready = Heap()
        for index in flightByKey.indices { flightByKey[index] = -1 }
        for index in downloadByOriginal.indices { downloadByOriginal[index] = -1 }
        occupied = 0
        pendingCost = 0
    }

    /// The end of the run, with nothing left in flight.
    func finish() -> TimeToImage {
        times.summary(network: link.profile, networkBytes: link.bytesCarried, backToBack: backToBack)
    }

    /// Keeps each of the trace's `requests`' times, for `timesByRequest`.
    mutating func keepTimesByRequest(_ requests: Int) { times = TimeToImageRecorder(requests: requests) }

    /// Each request's time in microseconds (`TimeToImage.untimed` where it has none), when kept.
    var timesByRequest: [UInt32] { times.byRequest }

    /// When each request was asked for, in nanoseconds on the clock, when kept.
    var askedByRequest: [UInt64] { times.askedByRequest }

    private mutating func add(_ flight: Flight) -> Int32 {
        occupied += 1
        pendingCost += flight.landing.cost
        let place = flights.insert(flight)
        if coalesces { flightByKey[Int(flight.landing.key)] = place }
        return place
    }

    private mutating func schedule(_ flight: Int32, decodableFrom time: UInt64) {
        let at = decoded(from: time, taking: flights[flight].decode)
        ready.insert(Ready(at: at, index: flights[flight].landing.index, flight: flight))
    }

    /// A transfer ended at `time`: its thumbnails go to be decoded. Returns the request whose
    /// original goes to disk now, if one does.
    private mutating func transferEnded(_ id: Int, at time: UInt64) -> Int? {
        guard id >= 0 else {
            schedule(Int32(-1 - id), decodableFrom: time)
            return nil
        }
        let download = downloads.remove(Int32(id))
        if download.original >= 0 { downloadByOriginal[Int(download.original)] = -1 }
        schedule(download.first, decodableFrom: time)
        for flight in download.sharing { schedule(flight, decodableFrom: time) }
        return download.storesFor >= 0 ? download.storesFor : nil
    }

    /// A transfer timed out: the flights it carried fail, with their joiners, and nothing lands.
    private mutating func transferFailed(_ id: Int) {
        guard id >= 0 else { return failed(Int32(-1 - id)) }
        let download = downloads.remove(Int32(id))
        if download.original >= 0 { downloadByOriginal[Int(download.original)] = -1 }
        failed(download.first)
        for flight in download.sharing { failed(flight) }
    }

    /// The flight will never land: its request and those that joined it are not shown.
    private mutating func failed(_ place: Int32) {
        let flight = flights.remove(place)
        times.timedOut += 1 + flight.landing.joiners
        failures.append(Failure(index: flight.landing.index, size: flight.landing.size, joined: false))
        var join = flight.lastJoin
        while join >= 0 {
            let joiner = joins.remove(join)
            failures.append(Failure(index: joiner.index, size: joiner.size, joined: true))
            join = joiner.previous
        }
        occupied -= 1 + flight.landing.joiners
        pendingCost -= flight.landing.cost
        if coalesces, flightByKey[Int(flight.landing.key)] == place { flightByKey[Int(flight.landing.key)] = -1 }
    }

    /// The flight's thumbnail is ready at `time`: its requests and their joiners are timed.
    private mutating func landed(_ place: Int32, at time: UInt64) -> Landing {
        var flight = flights.remove(place)
        times.record(flight.tier, time - flight.arrival, request: flight.landing.index)
        var join = flight.lastJoin
        while join >= 0 {
            let joiner = joins.remove(join)
            times.record(.joined, time - joiner.arrival, request: joiner.index)
            join = joiner.previous
        }
        occupied -= 1 + flight.landing.joiners
        pendingCost -= flight.landing.cost
        if coalesces, flightByKey[Int(flight.landing.key)] == place { flightByKey[Int(flight.landing.key)] = -1 }
        flight.landing.now = time
        return flight.landing
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
