import ImagePipeline
@_spi(Simulation) import CacheEngine

/// One simulation's caches and counters. `plainRequest` is the hot loop of
/// synthetic traces; `detailedRequest` adds ground truth, outcomes and the disk key.
struct SimulationState<Policy: EvictionPolicy> {
    let trace: SimulationTrace
    let configuration: SimulationConfiguration
    /// The live pipeline's decisions: which disk entries to try, what to store where.
    let plan: TierPlan
    var memoryTier: StripedMemory<Policy>
    var disk: DiskIndexModel?
    var result: SimulationResult
    /// Per request, where it was answered; empty unless asked for.
    var answers: [CacheSimulator.Answer] = []
    var hits = 0, byteHits = 0, bytesRequested = 0
    var peakMemoryCost = 0, peakDiskBytes = 0
    var nextEvent = 0
    /// Warnings the configuration makes besides the trace's.
    var scheduledWarnings: WarningSchedule
    /// The picture (content id) and source URL each memory and disk key holds.
    var memoryHolds: [(content: Int32, source: Int32)]
    var diskHolds: [(content: Int32, source: Int32)]
    /// Keys a warning dropped that have not been asked for since.
    var droppedByWarning: [Bool]
    /// The warning being recovered from: when it came and the cost held before it.
    var recovering: (time: UInt64, target: Int)?
    /// With `inFlight`: the requests whose thumbnails have not landed.
    var window: InFlightWindow
    /// With `inFlight`: the downloads whose originals are not on disk yet.
    var downloads: DownloadWindow
    var sharedDownloads = 0
    /// My Market's coalescer by URL id, with that coalescing.
    var myMarket: MyMarketCoalescerModel<Int32>?
    /// Per picture, whether this device has downloaded it before: a second download repeats it.
    var downloadedBefore: [Bool]
    /// Whether a store that takes the disk over its limit trims at once; in observed order
    /// the live disk tier's trims, which run a moment later, come as steps of their own.
    var trimsDiskAtOnce = true
    /// The app's footprint on the configuration's device; in observed order the live replay's
    /// own accounting decides, and its warnings and ends come as steps of their own.
    var footprint: DeviceFootprint?
    /// The session (launch) running: when its first and last requests came, whether the app was ended in it.
    var session: (first: UInt64, last: UInt64)?
    var sessionInterrupted = false

    typealias Landing = InFlightWindow.Landing

    init(trace: SimulationTrace, configuration: SimulationConfiguration, policy: Policy) {
        self.trace = trace
        self.configuration = configuration
        plan = TierPlan(diskPolicy: configuration.disk.map { trace.hasDetails ? $0.policy : .originals })
        let trimsIdle = [configuration.pressure.warning, configuration.pressure.critical].contains {
            if case .trimIdle = $0 { true } else { false }
        }
        memoryTier = StripedMemory(
            first: policy, kind: configuration.policy, limits: configuration.limits, stripes: configuration.stripes,
            fingerprints: trace.fingerprints, cheapestCost: trace.costs.min() ?? 1, timeToLive: configuration.timeToLive.map { UInt64(max($0.nanoseconds, 0)) },
            tracksLastUse: trimsIdle)
        disk = configuration.disk.map {
            DiskIndexModel(byteLimit: $0.byteLimit, countLimit: $0.countLimit, lowWaterFraction: $0.lowWaterFraction)
        }
        result = SimulationResult(policy: configuration.policy.description)
        scheduledWarnings = WarningSchedule(configuration.warnings, start: trace.times.first ?? 0)
        let tracksWarnings = configuration.warnings != .none
        memoryHolds = trace.hasDetails ? Array(repeating: (-1, -1), count: trace.keyCount) : []
        diskHolds = trace.hasDetails ? Array(repeating: (-1, -1), count: trace.diskKeyCount) : []
        droppedByWarning = tracksWarnings ? Array(repeating: false, count: trace.keyCount) : []
        window = InFlightWindow(capacity: trace.hasDetails ? max(configuration.inFlight, 1) : 1, keys: trace.keyCount)
        downloads = DownloadWindow(originals: window.capacity > 1 ? trace.diskKeyCount : 0)
        myMarket = trace.hasDetails && configuration.coalescing == .myMarketAsShipped ? MyMarketCoalescerModel() : nil
        downloadedBefore = Array(repeating: false, count: trace.contentCount)
        if trace.hasDetails, let device = configuration.device {
            footprint = DeviceFootprint(device)
            result.device = DeviceOutcome(device: device)
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
        if scheduledWarnings.isDue(at: now) { warn(.warning, now: now) }
    }

    /// A first hint that `key` comes soon: what the memory tier keeps of it. Mutating, as
    /// the hint below, so the state is used where it lies: borrowed from the loop's
    /// closures, it was copied whole.
    @inline(__always)
    mutating func prefetch(_ key: Slot) { memoryTier.prefetch(key) }

    /// A second hint, nearer the request: the policy's metadata for the key.
    @inline(__always)
    mutating func prefetchEntry(_ key: Slot) { memoryTier.prefetchEntry(key) }

    @inline(__always)
    mutating func plainRequest(key: Slot, cost: Int, size: Int, now: UInt64) {
        bytesRequested &+= size
        if memoryTier.lookup(key, now: now) {
            hits &+= 1
            byteHits &+= size
            return
        }
        let source: TierPlan.Source = disk?.contains(key) == true ? .diskOriginal : .origin
        if source == .diskOriginal {
            disk!.recordAccess(key)
            result.diskHits += 1
            result.diskByteHits += size
        }
        noteRefetch(key, size: size, fromOrigin: source == .origin)
        let stores = plan.stores(after: source)
        if stores.contains(.diskOriginal) { storeOnDisk(key, bytes: size) }
        if stores.contains(.memory) { insertInMemory(key, cost: cost, missCost: size, now: now) }
    }

    /// A recorded request, step by step as `ImagePipeline` takes it: memory,
    /// then the disk entries the plan names, then the origin; what it leaves
    /// behind is the plan's decision for where it came from and its fate,
    /// landing at once or, with `inFlight`, when the window says it is due.
    @inline(__always)
    mutating func detailedRequest(_ index: Int, key: Slot, cost: Int, size: Int, now: UInt64) {
        while window.oldestIsDue { landOldest() }
        noteSessionRequest(at: now)
        bytesRequested &+= size
        let truth = (content: trace.contents[index], source: trace.sources[index])
        if memoryTier.lookup(key, now: now) {
            hits &+= 1
            byteHits &+= size
            check(served: memoryHolds[Int(key)], truth: truth)
            if !answers.isEmpty { answers[index] = .memory }
            return
        }
        let url = trace.sources[index]
        if myMarket?.load(url) == .drop {
            result.unansweredRequests += 1
            result.unservedBytes += size
            if !answers.isEmpty { answers[index] = .unanswered }
            return
        }
        if configuration.coalescing == .perWaiter, let held = window.join(key) {
            // A memory miss for a thumbnail in flight waits for it: answered as it is, stored once.
            hits &+= 1
            byteHits &+= size
            check(served: held, truth: truth)
            if !answers.isEmpty { answers[index] = .joined }
            return
        }
        let originalKey = trace.diskKeys[index], thumbnailKey = trace.diskThumbnailKeys[index]
        var source = TierPlan.Source.origin
        if disk != nil, let hit = plan.firstDiskHit({ kind -> Void? in
            let diskKey = kind == .thumbnail ? thumbnailKey : originalKey
            return diskKey >= 0 && disk!.contains(diskKey) ? () : nil
        }) {
            source = TierPlan.Source(disk: hit.kind)
        }
        let fate = trace.outcomes[index].fate(at: source)
        if !answers.isEmpty {
            answers[index] = source != .origin ? .disk : fate == .offline ? .offline : fate == .abandoned ? .cancelled : .origin
        }
        var held = truth
        switch (source, fate) {
        case (.origin, .offline):
            result.offlineMisses += 1
            result.unservedBytes += size
            return
        case (.origin, .abandoned):
            result.cancelledTransfers += 1
            result.unservedBytes += size
            // The cell's reuse calls `cancel(url:)`, which forgets the waiting entry.
            myMarket?.cancel(truth.source)
            return
        case (.origin, _):
            noteRefetch(key, size: size, fromOrigin: true)
            if downloadedBefore[Int(truth.content)] { result.duplicateDownloads += 1 }
            downloadedBefore[Int(truth.content)] = true
            download(index, originalKey, stores: plan.stores(after: .origin, fate).contains(.diskOriginal))
        case (.diskThumbnail, _), (.diskOriginal, _):
            let diskKey = source == .diskThumbnail ? thumbnailKey : originalKey
            disk!.recordAccess(diskKey)
            result.diskHits += 1
            result.diskByteHits += size
            held = diskHolds[Int(diskKey)]
            check(served: held, truth: truth)
            noteRefetch(key, size: size, fromOrigin: false)
        }
        let landing = Landing(index: index, key: key, cost: cost, size: size, now: now, source: source, fate: fate, held: held)
        guard window.capacity > 1 else { return land(landing) }
        window.add(landing)
    }

    /// Stores the decoded thumbnail where the plan says (the original went to disk with the download).
    @inline(__always)
    mutating func land(_ landing: Landing) {
        // Its image is decoded beside what memory holds and the other images in flight.
        let verdict = footprint?.decoded(held: memoryTier.totalCost, decoding: landing.cost &+ window.pendingCost) ?? .none
        store(landing)
        switch verdict {
        case .none: break
        case .warn(let level): deviceWarns(level, now: landing.now)
        case .end: endProcess(losing: landing)
        }
        footprint?.settled(held: memoryTier.totalCost)
    }

    /// What a landing leaves behind, where the plan says.
    @inline(__always)
    mutating func store(_ landing: Landing) {
        let index = landing.index, source = landing.source
        let thumbnailKey = trace.diskThumbnailKeys[index]
        let stores = plan.stores(after: source, landing.fate)
        let thumbnailBytes = trace.thumbnailSizes[index]
        if stores.contains(.memory),
           insertInMemory(landing.key, cost: landing.cost, missCost: source == .diskThumbnail ? thumbnailBytes : landing.size, now: landing.now) {
            memoryHolds[Int(landing.key)] = landing.held
        }
        if stores.contains(.diskThumbnail), thumbnailKey >= 0 {
            storeOnDisk(thumbnailKey, bytes: thumbnailBytes)
            diskHolds[Int(thumbnailKey)] = landing.held
        }
    }

    /// An origin miss's download: its original goes to disk at once, or with
    /// `inFlight` after newer downloads push it out of the download window;
    /// until then another size of the URL shares it.
    @inline(__always)
    mutating func download(_ index: Int, _ originalKey: Slot, stores: Bool) {
        guard window.capacity > 1, originalKey >= 0 else {
            if stores { landOriginal(index) }
            return
        }
        if downloads.isDownloading(originalKey), configuration.coalescing == .perWaiter {
            sharedDownloads += 1
            return
        }
        downloads.add(index, original: originalKey, stores: stores)
        while downloads.isOverCapacity { landOldestDownload() }
    }

    @inline(__always)
    mutating func landOriginal(_ index: Int, storedBytes: Int = 0) {
        let originalKey = trace.diskKeys[index]
        storeOnDisk(originalKey, bytes: trace.originalDiskSizes[index], storedBytes: storedBytes)
        diskHolds[Int(originalKey)] = (content: trace.contents[index], source: trace.sources[index])
    }

    mutating func landOldestDownload() {
        let (index, stores) = downloads.removeOldest()
        if stores { landOriginal(index) }
    }

    mutating func landOldest() {
        let landing = window.removeOldest()
        // Its download finished before its decode did.
        while let oldest = downloads.oldestRequest, oldest <= landing.index { landOldestDownload() }
        land(landing)
    }

    /// Lands every request in flight (before an event, and at the end).
    mutating func landAll() {
        while !window.isEmpty { landOldest() }
        while downloads.oldestRequest != nil { landOldestDownload() }
    }

    @inline(__always)
    mutating func check(served: (content: Int32, source: Int32), truth: (content: Int32, source: Int32)) {
        guard served.content != truth.content else { return }
        if served.source == truth.source { result.staleImages += 1 } else { result.wrongImages += 1 }
    }

    @inline(__always)
    @discardableResult
    mutating func insertInMemory(_ key: Slot, cost: Int, missCost: Int, now: UInt64) -> Bool {
        let stored = memoryTier.insert(key, cost: cost, missCost: missCost, now: now)
        peakMemoryCost = max(peakMemoryCost, memoryTier.totalCost)
        if memoryTier.totalCost > scheduledWarnings.costThreshold { warn(.warning, now: now) }
        if let recovering, memoryTier.totalCost >= recovering.target { recovered(at: now) }
        return stored
    }

    /// Stores `bytes` of payload (plus the entry file's overhead), or `storedBytes` when a live
    /// run says what the entry took.
    @inline(__always)
    mutating func storeOnDisk(_ key: Slot, bytes: Int, storedBytes: Int = 0) {
        disk!.insert(key, bytes: storedBytes > 0 ? storedBytes : bytes + (trace.hasDetails ? trace.diskEntryOverheads[Int(key)] : 0))
        peakDiskBytes = max(peakDiskBytes, disk!.totalBytes)
        if trimsDiskAtOnce, disk!.needsTrim { trimDisk() }
    }

    /// Evicts the disk tier down to its low-water mark.
    mutating func trimDisk() {
        disk!.trim { _ in result.diskEvictions += 1 }
    }

    /// Counts a miss on a key a warning dropped: the price of that warning.
    @inline(__always)
    mutating func noteRefetch(_ key: Slot, size: Int, fromOrigin: Bool) {
        guard !droppedByWarning.isEmpty, droppedByWarning[Int(key)] else { return }
        droppedByWarning[Int(key)] = false
        guard fromOrigin else {
            result.warnings.diskRereads += 1
            return
        }
        result.warnings.refetches += 1
        result.warnings.refetchedBytes += size
    }

    mutating func apply(_ event: SimulationTrace.Event.Kind, now: UInt64) {
        switch event {
        case .memoryWarning(let level):
            if configuration.warnings == .trace { warn(level, now: now) }
        case .relaunch, .newDevice:
            endSession()
            restartProcess()
            if event == .newDevice {
                disk?.removeAll()
                for index in downloadedBefore.indices { downloadedBefore[index] = false }
            }
        case .invalidate(let memory, let diskKeys):
            guard configuration.honoursInvalidations else { return }
            for slot in trace.invalidatedMemoryKeys[memory] { memoryTier.remove(slot) }
            for slot in trace.invalidatedDiskKeys[diskKeys] { disk?.remove(slot) }
        }
    }

    /// A new process: memory starts empty, and misses from here on are not the warnings' doing.
    mutating func restartProcess() {
        memoryTier.restart()
        myMarket?.reset()
        recovering = nil
        for index in droppedByWarning.indices { droppedByWarning[index] = false }
        footprint?.restarted()
    }

    mutating func warn(_ level: MemoryPressureLevel, now: UInt64) {
        let before = memoryTier.totalCost
        result.warnings.count += 1
        let reaction = configuration.policy.reaction(to: level, under: configuration.pressure, onDevice: configuration.device != nil)
        memoryTier.respond(to: reaction, now: now) { slot in
            if !droppedByWarning.isEmpty { droppedByWarning[Int(slot)] = true }
        }
        if memoryTier.totalCost < before, recovering == nil {
            recovering = (now, before - before / 10)
        }
    }

    mutating func recovered(at now: UInt64) {
        guard let recovering else { return }
        // A request in flight can land with its own earlier time after a warning: no time has passed then.
        let seconds = Double(now > recovering.time ? now - recovering.time : 0) / 1e9
        result.warnings.recovered += 1
        result.warnings.recoverySeconds += seconds
        result.warnings.longestRecoverySeconds = max(result.warnings.longestRecoverySeconds, seconds)
        self.recovering = nil
    }

    /// The keys a streamed trace's next chunk names for the first time.
    mutating func admit(_ fingerprints: [UInt64]) {
        memoryTier.admit(fingerprints, stripes: configuration.stripes)
        if configuration.warnings != .none { droppedByWarning.append(contentsOf: repeatElement(false, count: fingerprints.count)) }
    }

    /// The run's figures; `requests` when the trace came in chunks (the state holds the first).
    func finish(requests: Int? = nil) -> SimulationResult {
        var result = result
        if let session { Self.count(session, in: &result) }
        if let footprint { result.device?.peakFootprintBytes = footprint.peakBytes }
        result.requests = requests ?? trace.count
        result.hits = Double(hits)
        result.byteHits = Double(byteHits)
        result.bytesRequested = bytesRequested
        result.statistics = memoryTier.statistics
        result.peakMemoryCost = peakMemoryCost
        result.peakDiskBytes = peakDiskBytes
        return result
    }
}
