import ImagePipeline

/// Spatial sampling of a trace's keys (SHARDS, Waldspurger et al., FAST '15): a key
/// is kept when a hash of its fingerprint falls under `rate`, and then every request
/// for it is kept, so a kept key's reuse pattern is whole. The same keys are kept
/// at every rate below (a lower threshold keeps a subset) and on every run.
public struct SpatialSample: Sendable {
    public let rate: Double
    /// The kept requests as a trace of their own (keys renumbered densely; events
    /// kept where they fall; invalidations narrowed to the kept keys).
    public let trace: SimulationTrace
    /// Requests in the whole trace, for the rate adjustment.
    public let fullCount: Int

    /// Every key of the whole trace, for the hit model's correction.
    let population: KeyPopulation

    /// SHARDS-adj: the hit ratio of `hits` among the sample's requests, with the
    /// difference between the requests expected at this rate and those sampled
    /// counted as hits (a sample holding a hot key over-counts its hits, one missing
    /// the hot keys under-counts them), over the expected count.
    public func adjustedHitRatio(hits: Double) -> Double {
        adjustedHitRatio(hits: hits, correction: shardsCorrection)
    }

    private var shardsCorrection: Double { rate * Double(fullCount) - Double(trace.count) }

    /// The hit ratio of `hits`, the sample's hits in a cache scaled down from `limits`
    /// (full-trace units), corrected as `adjustment` says.
    public func adjustedHitRatio(hits: Double, limits: CacheLimits, adjustment: SampleAdjustment) -> Double {
        adjustedHitRatio(hits: hits, correction: correction(limits: limits, adjustment: adjustment))
    }

    /// The hits `adjustment` adds to the sample's in a cache scaled down from `limits`:
    /// the same for every policy at one size, so worked out once per size.
    public func correction(limits: CacheLimits, adjustment: SampleAdjustment) -> Double {
        switch adjustment {
        case .shards: shardsCorrection
        case .hitModel: population.drawCorrection(limits: limits, rate: rate)
        }
    }

    /// `hits` plus `correction` over the requests expected at this rate.
    public func adjustedHitRatio(hits: Double, correction: Double) -> Double {
        let expected = rate * Double(fullCount)
        guard expected > 0 else { return 0 }
        return min(max((hits + correction) / expected, 0), 1)
    }

    /// Hash values below this are kept (of 2^24).
    static let resolution = 1 << 24

    static func keeps(_ fingerprint: UInt64, threshold: Int) -> Bool {
        var hash = SplitMix64(seed: fingerprint)
        return Int(hash.next() >> 40) < threshold
    }

    public init(_ full: SimulationTrace, rate: Double) {
        precondition(rate > 0 && rate <= 1, "a sampling rate is in (0, 1]")
        self.rate = rate
        fullCount = full.count
        let threshold = Int((rate * Double(Self.resolution)).rounded(.up))
        var sampled = SimulationTrace()
        var keyMap = [TraceKey](repeating: -1, count: full.keyCount)
        for key in 0..<full.keyCount where Self.keeps(full.fingerprints[key], threshold: threshold) {
            keyMap[key] = sampled.addKey(fingerprint: full.fingerprints[key])
        }
        population = KeyPopulation(full, kept: keyMap.map { $0 >= 0 })
        var diskMap = [TraceKey](repeating: -1, count: full.diskKeyCount)
        func disk(_ key: TraceKey) -> TraceKey {
            guard key >= 0 else { return -1 }
            if diskMap[Int(key)] < 0 { diskMap[Int(key)] = sampled.addDiskKey(entryOverhead: full.diskEntryOverheads[Int(key)]) }
            return diskMap[Int(key)]
        }
        var nextEvent = 0
        func events(before index: Int) {
            while nextEvent < full.events.count, full.events[nextEvent].beforeRequest <= index {
                switch full.events[nextEvent].kind {
                case .memoryWarning(let level): sampled.appendMemoryWarning(level)
                case .relaunch: sampled.appendReset(newDevice: false)
                case .newDevice: sampled.appendReset(newDevice: true)
                case .invalidate(let memory, let diskKeys):
                    let keptMemory = full.invalidatedMemoryKeys[memory].map { keyMap[Int($0)] }.filter { $0 >= 0 }
                    let keptDisk = full.invalidatedDiskKeys[diskKeys].map { diskMap[Int($0)] }.filter { $0 >= 0 }
                    if !keptMemory.isEmpty || !keptDisk.isEmpty { sampled.appendInvalidation(memory: keptMemory, disk: keptDisk) }
                }
                nextEvent += 1
            }
        }
        for index in 0..<full.count {
            let key = keyMap[Int(full.keys[index])]
            guard key >= 0 else { continue }
            events(before: index)
            if full.hasDetails {
                sampled.append(
                    key: key, cost: full.costs[index], size: full.sizes[index], time: full.times[index],
                    detail: .init(
                        diskKey: disk(full.diskKeys[index]), diskThumbnailKey: disk(full.diskThumbnailKeys[index]),
                        thumbnailBytes: full.thumbnailSizes[index], content: full.contents[index], url: full.urls[index], host: full.hosts[index],
                        outcome: full.outcomes[index]))
            } else {
                sampled.append(key: key, cost: full.costs[index], size: full.sizes[index], time: full.times[index])
            }
        }
        events(before: full.count)
        trace = sampled
    }
}
