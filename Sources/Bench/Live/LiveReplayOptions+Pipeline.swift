import CacheSimulation
import ImagePipeline

extension LiveReplayOptions {
    /// These options with the pipeline a pipeline file describes (`replay --pipeline`): its keys,
    /// memory (a share of the phone's resolved on `device`, or the apps' phone without one), policy,
    /// entry cap, count limit, warning reaction, disk and loads at once. A field the live pipeline
    /// cannot be told is refused by name, not run as something else: `simulate --pipeline` runs it.
    public mutating func replay(_ pipeline: AppPreset, from file: String) throws(PipelineFileError) {
        func refuse(_ field: String, _ value: String, _ live: String) -> PipelineFileError {
            PipelineFileError(path: file, line: 0, message: "\(field): \(value) cannot be replayed live, where \(live); simulate --pipeline runs it")
        }
        guard !pipeline.hasNoMemory else { throw refuse("memory", "none", "the pipeline always has a memory tier") }
        guard pipeline.memoryCost == .thumbnail else { throw refuse("decode", "full", "the pipeline decodes thumbnails") }
        if let disk = pipeline.diskKey, disk != pipeline.memoryKey {
            throw refuse("keys.disk", disk.description, "the disk is keyed as memory is (\(pipeline.memoryKey))")
        }
        if let ttl = pipeline.timeToLive { throw refuse("memory.time-to-live", "\(ttl)", "entries do not expire") }
        let reaction = WarningReaction(pipeline.pressure.warning)
        guard reaction.policy == pipeline.pressure else {
            throw refuse("memory.on-critical", pipeline.pressure.critical.description, "a critical warning purges all (ignore, when a warning is ignored)")
        }
        guard pipeline.coalescing == .perWaiter else {
            throw refuse("loads.coalescing", pipeline.coalescing.description, "one download answers every waiter")
        }
        guard pipeline.honoursInvalidations else { throw refuse("invalidations", "ignored", "a changed picture is downloaded again") }
        if let format = pipeline.originalDiskFormat { throw refuse("disk.format", "\(format)", "the disk keeps what was downloaded") }
        if let disk = pipeline.disk {
            let live = SimulationConfiguration.DiskTier(byteLimit: disk.byteLimit, policy: disk.policy)
            guard disk.countLimit == live.countLimit, disk.lowWaterFraction == live.lowWaterFraction else {
                throw refuse("disk.count-limit or disk.low-water", "\(disk.countLimit), \(disk.lowWaterFraction)", "the disk trims to 70 % of its size, with no count limit")
            }
        }
        let limits = pipeline.configuration(on: device).limits
        memory = .bytes(limits.costLimit)
        (memoryCountLimit, maxEntryFraction) = (limits.countLimit, limits.maxEntryFraction)
        policy = pipeline.policy
        keyStrategy = pipeline.memoryKey
        self.reaction = reaction
        disk = pipeline.disk.map { .bytes($0.byteLimit) }
        diskPolicy = pipeline.disk?.policy ?? diskPolicy
        concurrency = max(pipeline.loadsInFlight, 1)
        requestTimeout = pipeline.requestTimeout
    }
}
