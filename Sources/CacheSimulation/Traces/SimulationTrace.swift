import ImagePipeline

/// A trace's key, interned: an index into its per-key arrays (a memory key, or a disk key among
/// the disk keys). The simulator's tiers give a key a cache `Slot` of their own while it is resident.
public typealias TraceKey = Int32

/// Requests ready for simulation: keys interned to dense `Int32` ids before any
/// loop runs, stored as parallel arrays so the loop reads them sequentially.
///
/// A plain trace has keys, costs, sizes and times. A trace recorded from an app
/// also carries, per request, the disk key (the original image), the ground
/// truth (content and source URL ids) and what a miss can do (store, or not
/// when the request was cancelled or the device was offline); and events
/// between requests (memory warnings, relaunches, new devices, invalidations).
public struct SimulationTrace: Sendable {
    /// Key id of each request.
    public private(set) var keys: [TraceKey] = []
    /// Memory cost of each request's entry (decoded bytes).
    public private(set) var costs: [Int] = []
    /// Bytes a miss downloads (encoded size).
    public private(set) var sizes: [Int] = []
    /// Time of each request in nanoseconds from the start of the trace.
    public private(set) var times: [UInt64] = []
    /// Stable fingerprint of each key id (the same the live cache computes).
    public private(set) var fingerprints: [UInt64] = []
    /// Per request, when the trace has details (otherwise empty):
    /// the disk tier's key ids of the original (without processing) and of
    /// the re-encoded thumbnail (-1 when the trace has none), with the
    /// thumbnail's estimated encoded bytes,
    public private(set) var diskKeys: [TraceKey] = []
    public private(set) var diskThumbnailKeys: [TraceKey] = []
    public private(set) var thumbnailSizes: [Int] = []
    /// the bytes the original takes on disk (its download, or what an app re-encoding it writes),
    public private(set) var originalDiskSizes: [Int] = []
    /// the decoder's work to make the thumbnail from the original (on the clock),
    public private(set) var decodeWork: [DecodeWork] = []
    /// the ground-truth picture and the id of the URL it was asked by,
    public private(set) var contents: [Int32] = []
    /// One more than the largest content id: the pictures a per-picture table must hold.
    public private(set) var contentCount = 0
    public private(set) var urls: [Int32] = []
    /// The host each request's URL names (an id), for the clock's connections per host.
    public private(set) var hosts: [Int32] = []
    /// Each host id's authority, for a network that knows hosts by name (`NetworkProfile.hostRoundTrips`).
    public internal(set) var hostNames: [String] = []
    /// and what a miss does.
    public private(set) var outcomes: [MissOutcome] = []
    /// Per disk key id, the bytes an entry file adds to its payload (key and trailer).
    public private(set) var diskEntryOverheads: [Int] = []
    public var diskKeyCount: Int { diskEntryOverheads.count }
    /// Things that happen between requests, in order.
    public private(set) var events: [Event] = []
    /// The memory and disk key ids each invalidation removes (`Event.Kind.invalidate` ranges).
    public private(set) var invalidatedMemoryKeys: [TraceKey] = []
    public private(set) var invalidatedDiskKeys: [TraceKey] = []

    /// What happens to a request after a memory miss, besides the tiers' contents.
    public enum MissOutcome: UInt8, Sendable {
        /// Answered, from disk or the origin.
        case store
        /// The app cancelled it before the origin answered: the transfer stops and
        /// nothing is stored; a disk hit still finishes first.
        case cancelled
        /// The device is offline: no origin; a disk hit still answers.
        case offline

        /// The plan's fate of a request answered from `source`. A request sharing a download
        /// already in flight (`sharesDownload`) never starts one of its own: the app's cancel (at
        /// its download's start) and the device being offline (its download failing) do not
        /// reach it, and it is answered with the shared bytes.
        @inlinable
        public func fate(at source: TierPlan.Source, sharesDownload: Bool) -> TierPlan.Fate {
            switch self {
            case .store: .answered
            case .cancelled: source == .origin && !sharesDownload ? .abandoned : .answered
            case .offline: source == .origin && !sharesDownload ? .offline : .answered
            }
        }
    }

    public struct Event: Sendable, Hashable {
        public var beforeRequest: Int
        public var kind: Kind

        public enum Kind: Sendable, Hashable {
            case memoryWarning(MemoryPressureLevel)
            /// The app restarts: the memory tier starts empty, the disk stays.
            case relaunch
            /// Another device: both tiers start empty.
            case newDevice
            /// A URL's picture changed: these key ids leave both tiers.
            case invalidate(memory: Range<Int>, disk: Range<Int>)
        }
    }

    /// Per-request facts of a detailed trace.
    public struct Detail: Sendable {
        public var diskKey: TraceKey
        /// The re-encoded thumbnail's disk key id, or -1.
        public var diskThumbnailKey: TraceKey
        public var thumbnailBytes: Int
        /// The original's bytes on disk, when not the bytes downloaded (an app that re-encodes it).
        public var originalDiskBytes: Int?
        /// The decoder's work to make the thumbnail from the original.
        public var decodeWork: DecodeWork
        public var content: Int32
        public var url: Int32
        public var host: Int32
        public var outcome: MissOutcome

        public init(
            diskKey: TraceKey, diskThumbnailKey: TraceKey = -1, thumbnailBytes: Int = 0, originalDiskBytes: Int? = nil,
            decodeWork: DecodeWork = .none, content: Int32, url: Int32, host: Int32 = 0, outcome: MissOutcome = .store
        ) {
            self.diskKey = diskKey
            self.diskThumbnailKey = diskThumbnailKey
            self.thumbnailBytes = thumbnailBytes
            self.originalDiskBytes = originalDiskBytes
            self.decodeWork = decodeWork
            self.content = content
            self.url = url
            self.host = host
            self.outcome = outcome
        }
    }

    public init() {}

    public var count: Int { keys.count }
    public var keyCount: Int { fingerprints.count }
    public var hasDetails: Bool { !contents.isEmpty }

    /// Adds a key id with its fingerprint; returns the id.
    public mutating func addKey(fingerprint: UInt64) -> TraceKey {
        fingerprints.append(fingerprint)
        return TraceKey(fingerprints.count - 1)
    }

    /// Adds a disk key id whose entry files carry `entryOverhead` bytes besides the payload; returns it.
    public mutating func addDiskKey(entryOverhead: Int = 0) -> TraceKey {
        diskEntryOverheads.append(entryOverhead)
        return TraceKey(diskEntryOverheads.count - 1)
    }

    public mutating func append(key: TraceKey, cost: Int, size: Int, time: UInt64) {
        precondition(Int(key) < fingerprints.count, "add the key before requesting it")
        precondition(contents.isEmpty, "a detailed trace needs details on every request")
        keys.append(key)
        costs.append(cost)
        sizes.append(size)
        times.append(time)
    }

    public mutating func append(key: TraceKey, cost: Int, size: Int, time: UInt64, detail: Detail) {
        precondition(
            Int(key) < fingerprints.count && Int(detail.diskKey) < diskKeyCount && Int(detail.diskThumbnailKey) < diskKeyCount,
            "add the keys before requesting them")
        precondition(contents.count == keys.count, "a detailed trace needs details on every request")
        keys.append(key)
        costs.append(cost)
        sizes.append(size)
        times.append(time)
        diskKeys.append(detail.diskKey)
        diskThumbnailKeys.append(detail.diskThumbnailKey)
        thumbnailSizes.append(detail.thumbnailBytes)
        originalDiskSizes.append(detail.originalDiskBytes ?? size)
        decodeWork.append(detail.decodeWork)
        contents.append(detail.content)
        contentCount = max(contentCount, Int(detail.content) + 1)
        urls.append(detail.url)
        hosts.append(detail.host)
        outcomes.append(detail.outcome)
    }

    /// A memory warning between the requests already appended and the next.
    public mutating func appendMemoryWarning(_ level: MemoryPressureLevel) {
        events.append(Event(beforeRequest: keys.count, kind: .memoryWarning(level)))
    }

    /// A relaunch or a new device between the requests already appended and the next.
    public mutating func appendReset(newDevice: Bool) {
        events.append(Event(beforeRequest: keys.count, kind: newDevice ? .newDevice : .relaunch))
    }

    /// An invalidation of these memory and disk keys before the next request.
    public mutating func appendInvalidation(memory: some Sequence<TraceKey>, disk: some Sequence<TraceKey>) {
        let memoryStart = invalidatedMemoryKeys.count, diskStart = invalidatedDiskKeys.count
        invalidatedMemoryKeys.append(contentsOf: memory)
        invalidatedDiskKeys.append(contentsOf: disk)
        events.append(Event(
            beforeRequest: keys.count,
            kind: .invalidate(memory: memoryStart..<invalidatedMemoryKeys.count, disk: diskStart..<invalidatedDiskKeys.count)))
    }

    public mutating func reserveCapacity(_ requests: Int) {
        keys.reserveCapacity(requests)
        costs.reserveCapacity(requests)
        sizes.reserveCapacity(requests)
        times.reserveCapacity(requests)
    }

    /// Takes whole columns at once (the binary reader).
    mutating func load(fingerprints: [UInt64], keys: [TraceKey], costs: [Int], sizes: [Int], times: [UInt64]) {
        self.fingerprints = fingerprints
        self.keys = keys
        self.costs = costs
        self.sizes = sizes
        self.times = times
    }

    /// For each request, the index of the next request for the same key, or
    /// `count` when there is none. The input of the offline bounds.
    public func nextUses() -> [Int32] {
        var next = [Int32](repeating: Int32(count), count: count)
        var seen = [Int32](repeating: Int32(count), count: keyCount)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let key = Int(keys[index])
            next[index] = seen[key]
            seen[key] = Int32(index)
        }
        return next
    }
}

/// Interns string keys to dense ids with their stable fingerprints.
public struct KeyInterner: Sendable {
    private var ids: [ByteExactString: TraceKey] = [:]

    public init() {}

    public mutating func id(for key: String, in trace: inout SimulationTrace) -> TraceKey {
        if let id = ids[ByteExactString(key)] { return id }
        let id = trace.addKey(fingerprint: key.cacheFingerprint)
        ids[ByteExactString(key)] = id
        return id
    }
}
