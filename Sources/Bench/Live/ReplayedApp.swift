import Foundation
import ImagePipeline
import CacheSimulation

/// The replayed app's process: its pipeline (a new one when the app relaunches or the system
/// ends it, on the same disk), the device whose disk that is (a new one per recorded session),
/// and its statistics across processes. Used from the replaying task only.
final class ReplayedApp {
    let options: LiveReplayOptions
    let memoryBytes: Int
    let diskBytes: Int?
    private let scratch: String
    private let fetcher: ReplayFetcher
    private let recorder: ObservedOrderRecorder
    /// The pipeline of the running process; nil only while it is replaced.
    private(set) var pipeline: ImagePipeline? {
        didSet { current.withLock { $0 = pipeline } }
    }
    /// The pipeline now, for the memory sampler.
    let current: SharedLocked<ImagePipeline?>
    private var device = 0
    /// The statistics of the processes that have ended, and of launches counted so far.
    private(set) var totals = ImagePipeline.Statistics()

    init(options: LiveReplayOptions, memoryBytes: Int, diskBytes: Int?, scratch: String, fetcher: ReplayFetcher,
         recorder: ObservedOrderRecorder) throws {
        self.options = options
        self.memoryBytes = memoryBytes
        self.diskBytes = diskBytes
        self.scratch = scratch
        self.fetcher = fetcher
        self.recorder = recorder
        current = SharedLocked(nil)
        pipeline = try makePipeline()
    }

    /// A launch ended: its pipeline's counts join the totals.
    func countLaunch() {
        if let pipeline { totals.add(pipeline.statistics) }
    }

    /// Thumbnails the pipeline makes at once (its decode queue's width, the same in every process).
    var decodeWidth: Int { pipeline?.configuration.maxConcurrentDecodes ?? ProcessInfo.processInfo.activeProcessorCount }

    /// The app restarts: a new process on this device's disk. The old pipeline goes first, so
    /// its disk cache lets go of the directory.
    func relaunch() throws {
        close()
        pipeline = try makePipeline()
    }

    /// The system ended the app mid-launch: what it answered counts, and it starts again.
    func endedBySystem() throws {
        countLaunch()
        try relaunch()
    }

    /// Another device: a new disk. Returns false, doing nothing, when nothing has been asked for yet.
    @discardableResult
    func moveToNewDevice() throws -> Bool {
        guard totals.requests > 0 || (pipeline?.statistics.requests ?? 0) > 0 else { return false }
        close()
        try? FileManager.default.removeItem(atPath: directory)
        device += 1
        pipeline = try makePipeline()
        return true
    }

    /// The process ends: its disk tier saves its order and lets go of the directory now,
    /// not when the pipeline's last reference goes (a finished fetch task's, a moment later).
    func close() {
        pipeline?.close()
        pipeline = nil
    }

    /// What the pipeline does when the system warns, as the simulator has it (an NSCache on a phone empties itself).
    func systemReaction(to level: MemoryPressureLevel) -> MemoryPressureReaction {
        options.policy.reaction(to: level, under: options.reaction.policy, onDevice: options.device != nil)
    }

    private var directory: String { scratch + "/device-\(device)" }

    private func makePipeline() throws -> ImagePipeline {
        let configuration = ImagePipeline.Configuration(
            memory: .init(limits: options.memoryLimits(bytes: memoryBytes), policy: options.policy, stripes: options.stripes),
            imageCache: options.imageCache?(memoryBytes),
            disk: diskBytes.map { DiskCache.Configuration(directory: directory, byteLimit: $0, sync: options.diskSync) },
            diskPolicy: options.diskPolicy, keyStrategy: options.keyStrategy, decisionRecorder: recorder)
        return try ImagePipeline(configuration, fetcher: fetcher)
    }
}
