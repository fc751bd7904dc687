import ImagePipeline

/// The in-flight model's requests whose thumbnails have not landed, oldest first, in a window
/// of `capacity` places: each such request holds one, and so does each request that joined it,
/// until it lands. The oldest flight lands once more than a third of the window's places have
/// been taken after it (by misses and joins; a memory hit passes through live in next to no
/// time), or sooner when the window is full: live, flights finish while later requests go out
/// (BENCHMARKS.md, "The in-flight model"). Empty and unused at a capacity of one (each request
/// lands at once).
struct InFlightWindow {
    /// What a request leaves behind once its image is in hand.
    struct Landing {
        let index: Int
        let key: TraceKey
        let cost: Int
        let size: Int
        /// When the request started; once landed on the clock, when it landed.
        var now: UInt64
        let source: TierPlan.Source
        let fate: TierPlan.Fate
        /// The picture it shows (content id and source URL).
        let held: (content: Int32, url: Int32)
        /// Requests for the same thumbnail waiting on this one.
        var joiners = 0
        /// Places taken in the window when it started, its own included.
        var started = 0
    }

    let capacity: Int
    /// A flight lands once more places than this have been taken after it.
    let landsAfter: Int
    /// Places taken so far.
    private var placesTaken = 0
    private var pending: [Landing] = []
    private var start = 0
    /// Places held: the requests pending and those waiting on them.
    private var occupied = 0
    /// Requests pending per memory key.
    private var flightsByKey: [Int32]
    /// Costs of the images being decoded.
    private(set) var pendingCost = 0

    init(capacity: Int, keys: Int) {
        self.capacity = capacity
        landsAfter = max(capacity / 3, 1)
        flightsByKey = capacity > 1 ? Array(repeating: 0, count: keys) : []
    }

    var isEmpty: Bool { start == pending.count }

    /// Whether the oldest flight must land before the next request: the window is full, or
    /// more than `landsAfter` places have been taken after it.
    var oldestIsDue: Bool {
        occupied >= capacity || (!isEmpty && placesTaken - pending[start].started > landsAfter)
    }

    /// A memory miss for `key` joins its newest flight, when one is pending: the picture it will show.
    mutating func join(_ key: TraceKey) -> (content: Int32, url: Int32)? {
        guard !flightsByKey.isEmpty, flightsByKey[Int(key)] > 0,
              let flight = pending[start...].lastIndex(where: { $0.key == key }) else { return nil }
        pending[flight].joiners += 1
        occupied += 1
        placesTaken += 1
        return pending[flight].held
    }

    mutating func add(_ landing: Landing) {
        var landing = landing
        placesTaken += 1
        landing.started = placesTaken
        pending.append(landing)
        pendingCost += landing.cost
        occupied += 1
        flightsByKey[Int(landing.key)] += 1
    }

    /// The oldest pending request, which lands now; its place and its joiners' are free.
    mutating func removeOldest() -> Landing {
        let landing = pending[start]
        start += 1
        pendingCost -= landing.cost
        occupied -= 1 + landing.joiners
        flightsByKey[Int(landing.key)] -= 1
        if start == pending.count {
            pending.removeAll(keepingCapacity: true)
            start = 0
        }
        return landing
    }

    /// Every pending request, which will never land (the app was ended).
    mutating func removeAll() -> ArraySlice<Landing> {
        let lost = pending[start...]
        for landing in lost { flightsByKey[Int(landing.key)] -= 1 }
        pending.removeAll(keepingCapacity: true)
        start = 0
        pendingCost = 0
        occupied = 0
        return lost
    }
}
