import ImagePipeline
@_spi(Simulation) import CacheEngine

/// One simulation run, in its parts: the tiers, the accounting of its requests, what is in
/// flight, the memory warnings and the device. `plainRequest` is the hot loop of synthetic
/// and libCacheSim traces (on a clock, `plainRequestOnClock`); `detailedRequest`
/// takes a recorded request as `ImagePipeline` does,
/// and `observed` (ObservedOrder.swift) takes a live replay's decisions one by one; both count
/// through the same `RequestAccounting`.
struct SimulationState<Policy: EvictionPolicy> {
    let trace: SimulationTrace
    let configuration: SimulationConfiguration
    var tiers: SimulatedTiers<Policy>
    var accounting: RequestAccounting
    var inFlight: InFlight
    var warnings: WarningAccount
    var device: DeviceSession
    /// With a network: the in-flight model on a clock, which times each request and decides
    /// joins and landings by time (`RequestClock`) in place of `inFlight`'s windows.
    var clock: RequestClock?
    /// The trace's next event.
    var nextEvent = 0

    typealias Landing = InFlightWindow.Landing

    /// What is in flight: the thumbnails and downloads that have not landed, and My Market's coalescer.
    struct InFlight {
        /// With `inFlight`: the requests whose thumbnails have not landed.
        var window: InFlightWindow
        /// With `inFlight`: the downloads whose originals are not on disk yet.
        var downloads: DownloadWindow
        /// My Market's coalescer by URL id, with that coalescing.
        var myMarket: MyMarketCoalescerModel<Int32>?
    }

    init(trace: SimulationTrace, configuration: SimulationConfiguration, policy: Policy) {
        self.trace = trace
        self.configuration = configuration
        tiers = SimulatedTiers(trace: trace, configuration: configuration, policy: policy)
        accounting = RequestAccounting(result: SimulationResult(policy: configuration.policy.description), pictures: trace.contentCount)
        let clocked = configuration.network != nil
        let window = InFlightWindow(capacity: trace.hasDetails && !clocked ? max(configuration.inFlight, 1) : 1, keys: trace.keyCount)
        inFlight = InFlight(
            window: window, downloads: DownloadWindow(originals: window.capacity > 1 ? trace.diskKeyCount : 0),
            myMarket: trace.hasDetails && configuration.coalescing == .myMarketAsShipped ? MyMarketCoalescerModel() : nil)
        warnings = WarningAccount(configuration.warnings, start: trace.times.first ?? 0, keys: trace.keyCount)
        device = DeviceSession()
        clock = clocked ? configuration.network.map {
            RequestClock(
                network: $0, costs: configuration.deviceCosts, limit: configuration.inFlight,
                coalesces: configuration.coalescing == .perWaiter, backToBack: configuration.arrivals == .backToBack,
                keys: trace.keyCount, diskKeys: trace.diskKeyCount, hostNames: trace.hostNames,
                requestTimeout: configuration.requestTimeout)
        } : nil
        if trace.hasDetails, let model = configuration.device {
            device.footprint = DeviceFootprint(model)
            accounting.result.device = DeviceOutcome(device: model)
        }
    }

    @inline(__always)
    mutating func beforeRequest(_ index: Int, now: UInt64) {
        while nextEvent < trace.events.count, trace.events[nextEvent].beforeRequest <= index {
            // Warnings, invalidations and relaunches meet the tiers after the requests in flight land.
            landAll()
            apply(trace.events[nextEvent].kind, now: now)
            nextEvent += 1
        }
        if warnings.scheduled.isDue(at: now) { warn(.warning, now: now) }
    }

    /// A first hint that `key` comes soon: what the memory tier keeps of it. Mutating, as
    /// the hint below, so the state is used where it lies: borrowed from the loop's
    /// closures, it was copied whole.
    @inline(__always)
    mutating func prefetch(_ key: TraceKey) { tiers.memory.prefetch(key) }

    /// On a clock, the same first hint for where the key's flight is noted.
    @inline(__always)
    mutating func prefetchFlight(_ key: TraceKey) { clock?.prefetch(key) }

    /// A second hint, nearer the request: the policy's metadata for the key.
    @inline(__always)
    mutating func prefetchEntry(_ key: TraceKey) {
        tiers.memory.prefetchEntry(key)
        // A plain trace's disk entry has its key's number: a memory miss looks there next.
        tiers.disk?.prefetch(key)
    }

    /// A third hint, a request or two early: what a hit on the key writes besides its own entry.
    @inline(__always)
    mutating func prefetchNeighbours(_ key: TraceKey) { tiers.memory.prefetchNeighbours(key) }

    /// A plain request, untimed: memory, then the disk, then the origin, the object stored
    /// where the plan says.
    @inline(__always)
    mutating func plainRequest(key: TraceKey, cost: Int, size: Int, now: UInt64) {
        accounting.bytesRequested &+= size
        if tiers.memory.lookup(key, now: now) {
            accounting.hits &+= 1
            accounting.byteHits &+= size
            return
        }
        let source = plainSource(key, size: size)
        storePlain(key, cost: cost, size: size, after: source, now: now)
    }

    /// A plain request (numbered `index` in the whole trace) on the clock: it starts when the
    /// app has a place; a memory hit takes no time, a miss goes on as `plainMissOnClock` says.
    @inline(__always)
    mutating func plainRequestOnClock(_ index: Int, key: TraceKey, cost: Int, size: Int, now arrival: UInt64) {
        let now = start(index, at: arrival)
        accounting.bytesRequested &+= size
        if tiers.memory.lookup(key, now: now) {
            accounting.hits &+= 1
            accounting.byteHits &+= size
            clock!.memoryHit()
            return
        }
        plainMissOnClock(index, key: key, cost: cost, size: size, now: now)
    }

    /// A plain memory miss on the clock: it joins the object in flight, or reads it from disk
    /// or downloads it, then decodes it. A plain trace has bytes, not pictures: the decode is
    /// its fixed part and its parts per encoded byte (the size) and per decoded byte (the cost).
    @inline(never)
    mutating func plainMissOnClock(_ index: Int, key: TraceKey, cost: Int, size: Int, now: UInt64) {
        if configuration.coalescing == .perWaiter, clock!.join(key, size: size) != nil {
            accounting.hits &+= 1
            accounting.byteHits &+= size
            return
        }
        let source = plainSource(key, size: size)
        let landing = Landing(index: index, key: key, cost: cost, size: size, now: now, source: source, fate: .answered, held: (-1, -1))
        if source == .origin {
            _ = clock!.download(landing, original: -1, host: 0, bytes: size, work: .none, storesOriginal: false)
        } else {
            clock!.read(landing, bytes: size, work: .none)
        }
    }

    /// Where a plain memory miss is answered: the disk, when it holds the key, or the origin.
    @inline(__always)
    mutating func plainSource(_ key: TraceKey, size: Int) -> TierPlan.Source {
        let source: TierPlan.Source = tiers.readDisk(key) ? .diskOriginal : .origin
        if source == .diskOriginal {
            accounting.result.diskHits += 1
            accounting.result.diskByteHits += size
        }
        noteRefetch(key, size: size, fromOrigin: source == .origin)
        return source
    }

    /// A plain trace has one object per key: what a miss brings is stored on disk and in
    /// memory as the plan says for where it came from.
    @inline(__always)
    mutating func storePlain(_ key: TraceKey, cost: Int, size: Int, after source: TierPlan.Source, now: UInt64) {
        let stores = tiers.plan.stores(after: source)
        if stores.contains(.diskOriginal) { tiers.storeOnDisk(key, bytes: size) }
        if stores.contains(.memory) { insertInMemory(key, cost: cost, missCost: size, now: now) }
    }

    /// A recorded request, step by step as `ImagePipeline` takes it: memory,
    /// then the disk entries the plan names, then the origin; what it leaves
    /// behind is the plan's decision for where it came from and its fate,
    /// landing at once or, with `inFlight`, when the window says it is due,
    /// or on a clock, when its image is ready.
    @inline(__always)
    mutating func detailedRequest(_ index: Int, key: TraceKey, cost: Int, size: Int, now arrival: UInt64) {
        noteSessionRequest(at: arrival)
        let now = start(index, at: arrival)
        accounting.bytesRequested &+= size
        let truth = (content: trace.contents[index], url: trace.urls[index])
        if tiers.memory.lookup(key, now: now) {
            accounting.hit(index, size: size, as: .memory)
            accounting.check(served: tiers.memoryHolds[Int(key)], truth: truth)
            clock?.memoryHit()
            return
        }
        if inFlight.myMarket?.load(truth.url) == .drop { return accounting.unanswered(index, size: size) }
        if configuration.coalescing == .perWaiter, let held = clock == nil ? inFlight.window.join(key) : clock!.join(key, size: size) {
            // A memory miss for a thumbnail in flight waits for it: answered as it is, stored once.
            accounting.hit(index, size: size, as: .joined)
            accounting.check(served: held, truth: truth)
            return
        }
        let originalKey = trace.diskKeys[index], thumbnailKey = trace.diskThumbnailKeys[index]
        let plan = tiers.plan
        let source = tiers.disk == nil ? .origin : plan.firstDiskHit { kind -> Void? in
            tiers.readDisk(kind == .thumbnail ? thumbnailKey : originalKey) ? () : nil
        }.map { TierPlan.Source(disk: $0.kind) } ?? .origin
        let fate = trace.outcomes[index].fate(at: source, sharesDownload: source == .origin && sharesDownload(originalKey))
        var held = truth
        var storesOriginal = false
        switch (source, fate) {
        case (.origin, .offline):
            return accounting.offline(index, size: size)
        case (.origin, .abandoned):
            // The cell's reuse calls `cancel(url:)`, which forgets the waiting entry.
            inFlight.myMarket?.cancel(truth.url)
            return accounting.cancelled(index, size: size)
        case (.origin, _):
            noteRefetch(key, size: size, fromOrigin: true)
            accounting.downloaded(index, picture: truth.content)
            storesOriginal = plan.stores(after: .origin, fate).contains(.diskOriginal)
        case (.diskThumbnail, _), (.diskOriginal, _):
            accounting.diskHit(index, size: size)
            held = tiers.diskHolds[Int(source == .diskThumbnail ? thumbnailKey : originalKey)]
            accounting.check(served: held, truth: truth)
            noteRefetch(key, size: size, fromOrigin: false)
        }
        let landing = Landing(index: index, key: key, cost: cost, size: size, now: now, source: source, fate: fate, held: held)
        if clock != nil {
            switch source {
            case .origin:
                let shared = clock!.download(
                    landing, original: originalKey, host: trace.hosts[index], bytes: size, work: trace.decodeWork[index], storesOriginal: storesOriginal)
                if shared { accounting.sharedDownloads += 1 }
            // A stored thumbnail fits its box as it is (libjpeg alone, in the default format); an
            // original is made into one again.
            case .diskThumbnail:
                clock!.read(landing, bytes: trace.thumbnailSizes[index], work: DecodeWork(loadedPixels: landing.cost / 3, resizedPixels: 0, throughLibvips: false))
            case .diskOriginal: clock!.read(landing, bytes: trace.originalDiskSizes[index], work: trace.decodeWork[index])
            }
            return
        }
        if source == .origin { download(index, originalKey, stores: storesOriginal) }
        guard inFlight.window.capacity > 1 else { return land(landing) }
        inFlight.window.add(landing)
    }

    /// When a request asked for at `time` starts: then, or on a clock once the app has a
    /// place for it (and, back to back, arriving only then); what is due by then lands first.
    @inline(__always)
    mutating func start(_ index: Int, at time: UInt64) -> UInt64 {
        guard clock != nil else {
            while inFlight.window.oldestIsDue { landOldest() }
            return time
        }
        landOnClock(by: clock!.arrival(at: time))
        while clock!.isFull, let event = clock!.next(by: .max) { land(event) }
        // Asked again: back to back, a request arrives only once the wait for a place is over.
        return clock!.start(index, at: clock!.arrival(at: time))
    }

    /// Everything the clock says lands by `time`, in the order it lands.
    mutating func landOnClock(by time: UInt64) {
        while let event = clock?.next(by: time) { land(event) }
    }

    mutating func land(_ event: RequestClock.Event) {
        switch event {
        case .original(let index): landOriginal(index)
        case .thumbnail(let landing): land(landing)
        case .failed(let failure): accounting.timedOut(failure.index, size: failure.size, joined: failure.joined)
        }
    }

    /// Stores the decoded thumbnail where the plan says (the original went to disk with the download).
    @inline(__always)
    mutating func land(_ landing: Landing) {
        guard trace.hasDetails else {
            return storePlain(landing.key, cost: landing.cost, size: landing.size, after: landing.source, now: landing.now)
        }
        // Its image is decoded beside what memory holds and the other images in flight.
        let inFlightCost = clock?.pendingCost ?? inFlight.window.pendingCost
        let verdict = device.footprint?.decoded(held: tiers.memory.totalCost, decoding: landing.cost &+ inFlightCost) ?? .none
        store(landing, tiers.plan.stores(after: landing.source, landing.fate))
        switch verdict {
        case .none: break
        case .warn(let level): deviceWarns(level, now: landing.now)
        case .end: endProcess(losing: landing)
        }
        device.footprint?.settled(held: tiers.memory.totalCost)
    }

    /// What `landing`'s image leaves behind: `stores`, the plan's decision for its source and
    /// fate (in observed order, the store the live tier logged). `storedBytes`: what the disk
    /// entry took live, when a replay said.
    @inline(__always)
    mutating func store(_ landing: Landing, _ stores: TierPlan.Stores, storedBytes: Int = 0) {
        let index = landing.index
        let thumbnailKey = trace.diskThumbnailKeys[index]
        let thumbnailBytes = trace.thumbnailSizes[index]
        if stores.contains(.memory),
           insertInMemory(landing.key, cost: landing.cost, missCost: landing.source == .diskThumbnail ? thumbnailBytes : landing.size, now: landing.now) {
            tiers.memoryHolds[Int(landing.key)] = landing.held
        }
        if stores.contains(.diskThumbnail), thumbnailKey >= 0 {
            storeOnDisk(thumbnailKey, bytes: thumbnailBytes, storedBytes: storedBytes)
            tiers.diskHolds[Int(thumbnailKey)] = landing.held
        }
    }

    /// Whether a miss for `original` would share a download already on its way: on the clock's
    /// link, or in the count model's window.
    @inline(__always)
    func sharesDownload(_ original: TraceKey) -> Bool {
        guard configuration.coalescing == .perWaiter, original >= 0 else { return false }
        if clock != nil { return clock!.isDownloading(original) }
        return inFlight.window.capacity > 1 && inFlight.downloads.isDownloading(original)
    }

    /// An origin miss's download: its original goes to disk at once, or with
    /// `inFlight` after newer downloads push it out of the download window;
    /// until then another size of the URL shares it.
    @inline(__always)
    mutating func download(_ index: Int, _ originalKey: TraceKey, stores: Bool) {
        guard inFlight.window.capacity > 1, originalKey >= 0 else {
            if stores { landOriginal(index) }
            return
        }
        if inFlight.downloads.isDownloading(originalKey), configuration.coalescing == .perWaiter {
            accounting.sharedDownloads += 1
            return
        }
        inFlight.downloads.add(index, original: originalKey, stores: stores)
        while inFlight.downloads.isOverCapacity { landOldestDownload() }
    }

    @inline(__always)
    mutating func landOriginal(_ index: Int, storedBytes: Int = 0) {
        let originalKey = trace.diskKeys[index]
        storeOnDisk(originalKey, bytes: trace.originalDiskSizes[index], storedBytes: storedBytes)
        tiers.diskHolds[Int(originalKey)] = (content: trace.contents[index], url: trace.urls[index])
    }

    mutating func landOldestDownload() {
        let (index, stores) = inFlight.downloads.removeOldest()
        if stores { landOriginal(index) }
    }

    mutating func landOldest() {
        let landing = inFlight.window.removeOldest()
        // Its download finished before its decode did.
        while let oldest = inFlight.downloads.oldestRequest, oldest <= landing.index { landOldestDownload() }
        land(landing)
    }

    /// Lands every request in flight (before an event, and at the end).
    mutating func landAll() {
        landOnClock(by: .max)
        while !inFlight.window.isEmpty { landOldest() }
        while inFlight.downloads.oldestRequest != nil { landOldestDownload() }
    }

    /// Stores in memory; a warning when the memory tier passes the configuration's threshold,
    /// a recovery when it is back to what it held before the last one.
    @inline(__always)
    @discardableResult
    mutating func insertInMemory(_ key: TraceKey, cost: Int, missCost: Int, now: UInt64) -> Bool {
        let stored = tiers.insertInMemory(key, cost: cost, missCost: missCost, now: now)
        if tiers.memory.totalCost > warnings.scheduled.costThreshold { warn(.warning, now: now) }
        if let recovering = warnings.recovering, tiers.memory.totalCost >= recovering.target { recovered(at: now) }
        return stored
    }

    /// Stores `bytes` of payload (plus the entry file's overhead), or `storedBytes` when a live
    /// run says what the entry took.
    @inline(__always)
    mutating func storeOnDisk(_ key: TraceKey, bytes: Int, storedBytes: Int = 0) {
        tiers.storeOnDisk(key, bytes: storedBytes > 0 ? storedBytes : bytes + (trace.hasDetails ? trace.diskEntryOverheads[Int(key)] : 0))
    }

    mutating func apply(_ event: SimulationTrace.Event.Kind, now: UInt64) {
        switch event {
        case .memoryWarning(let level):
            if configuration.warnings == .trace { warn(level, now: now) }
        case .relaunch, .newDevice:
            clock?.processEnded()
            endSession()
            restartProcess()
            if event == .newDevice {
                tiers.disk?.removeAll()
                accounting.newDevice()
            }
        case .invalidate(let memory, let diskKeys):
            guard configuration.honoursInvalidations else { return }
            for slot in trace.invalidatedMemoryKeys[memory] { tiers.memory.remove(slot) }
            for slot in trace.invalidatedDiskKeys[diskKeys] { tiers.disk?.remove(slot) }
        }
    }

    /// A new process: memory starts empty, and misses from here on are not the warnings' doing.
    mutating func restartProcess() {
        tiers.memory.restart()
        inFlight.myMarket?.reset()
        warnings.restarted()
        device.footprint?.restarted()
    }

    /// The keys a streamed trace's next chunk names for the first time.
    mutating func admit(_ fingerprints: [UInt64]) {
        tiers.memory.admit(fingerprints, stripes: configuration.stripes)
        clock?.admit(fingerprints.count)
        warnings.admit(fingerprints.count)
    }

    /// The run's figures; `requests` when the trace came in chunks (the state holds the first).
    func finish(requests: Int? = nil) -> SimulationResult {
        var result = accounting.result
        if let session = device.session { DeviceSession.count(session, in: &result) }
        if let footprint = device.footprint { result.device?.peakFootprintBytes = footprint.peakBytes }
        result.requests = requests ?? trace.count
        result.hits = Double(accounting.hits)
        result.byteHits = Double(accounting.byteHits)
        result.bytesRequested = accounting.bytesRequested
        result.statistics = tiers.memory.statistics
        result.peakMemoryCost = tiers.peakMemoryCost
        result.peakDiskBytes = tiers.peakDiskBytes
        result.diskEvictions = tiers.diskEvictions
        if let clock { result.timeToImage = clock.finish() }
        return result
    }
}
