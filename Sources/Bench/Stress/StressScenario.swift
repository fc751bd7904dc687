import Foundation
import HTTPImageLoading
import ImagePipeline
import PipelineTesting
import Logging
import OriginServer

/// A bounded, self-stopping stress scenario against the live pipeline and the
/// loopback origin, and the invariants it checks.
public struct StressScenario: Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// Many concurrent tasks on a few keys.
        case hotKeys = "hot-keys"
        /// Memory warnings in a tight loop while requests run.
        case warnings
        /// A share of origin responses are faults (5xx, resets, truncated, HTML, wrong type).
        case originFaults = "origin-faults"
        /// Every 7th disk read or write fails with EIO.
        case diskFaults = "disk-faults"
        /// Every disk write fails with ENOSPC.
        case fullDisk = "full-disk"
        /// All of the above at once.
        case everything
    }

    public var kind: Kind
    /// Requests issued in total.
    public var requests: Int
    /// Distinct images they ask for.
    public var keys: Int
    public var concurrency: Int
    /// Memory limit: small, so eviction runs constantly.
    public var memoryBytes: Int
    public var diskBytes: Int

    /// The most requests one scenario sends, and distinct images it makes (each synthesised
    /// and kept by the origin): enough for any soak, and a run that ends.
    public static let maximumRequests = 10_000_000
    public static let maximumImages = 100_000

    public init(_ kind: Kind, requests: Int = 2_000, keys: Int = 24, concurrency: Int = 128,
                memoryBytes: Int = 4 << 20, diskBytes: Int = 2 << 20) {
        self.kind = kind
        self.requests = requests
        self.keys = keys
        self.concurrency = concurrency
        self.memoryBytes = memoryBytes
        self.diskBytes = diskBytes
    }

    public var description: String { kind.rawValue }

    var warnsInLoop: Bool { kind == .warnings || kind == .everything }
    var originFaultEvery: Int? { kind == .originFaults || kind == .everything ? 5 : nil }
    var fileSystem: any FileSystem {
        switch kind {
        case .diskFaults, .everything: FaultInjectingFileSystem(.init(failEveryNth: 7))
        case .fullDisk: FaultInjectingFileSystem(.init(writeError: ENOSPC))
        default: PosixFileSystem()
        }
    }
}

/// What a stress run saw, and the invariants it broke (none, to pass).
public struct StressReport: Codable, Sendable {
    public var scenario: String
    public var requests: Int
    public var images: Int
    public var typedErrors: Int
    public var unanswered: Int
    public var wrongImages: Int
    public var warnings: Int
    public var memoryCostAtRest: Int
    public var memoryLimit: Int
    public var diskBytesAtRest: Int
    public var diskLimit: Int
    public var seconds: Double
    public var peakResidentBytes: Int
    public var violations: [String]

    public var passed: Bool { violations.isEmpty }
}

public enum StressRunner {
    /// The fetcher's connections to the one origin: enough that concurrency, not the pool, is the limit.
    public static let connectionsPerHost = 32

    /// Runs scenarios one after another against one origin; `finished` hears each report as it comes.
    public static func run(
        _ scenarios: [StressScenario], store: String, progress: ProgressLine = ProgressLine(),
        finished: (StressReport) -> Void = { _ in }
    ) async throws -> [StressReport] {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let origin = try await OriginServer.start(.init(storeDirectory: store, storeByteLimit: 1 << 30))
        let fetcher = HTTPImageFetcher(.init(connectionsPerHost: connectionsPerHost))
        var reports: [StressReport] = []
        do {
            for scenario in scenarios {
                progress.update("stress: \(scenario)")
                reports.append(try await run(scenario, origin: origin, fetcher: fetcher))
                finished(reports[reports.count - 1])
            }
        } catch {
            try? await fetcher.shutdown()
            await origin.stop()
            throw error
        }
        progress.finish()
        try await fetcher.shutdown()
        await origin.stop()
        return reports
    }

    static func run(_ scenario: StressScenario, origin: OriginServer, fetcher: HTTPImageFetcher) async throws -> StressReport {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagecache-bench-stress-\(getpid())-\(scenario.kind.rawValue)").path
        try? FileManager.default.removeItem(atPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The injected disk faults are expected: they are counted, not logged.
        var quiet = Logger(label: "ImagePipeline.DiskCache")
        quiet.logLevel = .critical
        let disk = try DiskCache(.init(directory: directory, byteLimit: scenario.diskBytes, fileSystem: scenario.fileSystem, logger: quiet))
        let pipeline = try ImagePipeline(
            .init(memory: .init(limits: CacheLimits(costLimit: scenario.memoryBytes)), dataCache: disk), fetcher: fetcher)
        // Each key is its own picture with its own width, so a wrong image shows in the answer's source size.
        let images = (0..<scenario.keys).map { key in
            ImageDescriptor(contentID: UInt64(9_000 + key), width: 320 + key * 8, height: 240, format: key % 3 == 0 ? .png : .jpeg)
        }
        let start = ContinuousClock.now
        let tally = SharedLocked(Tally())
        let stopWarnings = SharedLocked(false)
        let warner = Task {
            var count = 0
            while scenario.warnsInLoop, !stopWarnings.withLock({ $0 }) {
                pipeline.respond(to: count % 2 == 0 ? .purgeAll : .trimToFraction(0.5))
                count += 1
                await Task.yield()
            }
            return count
        }
        // A discarding group frees each finished task at once: a plain group keeps every
        // child until it is awaited, which the soak showed as memory growing with requests.
        await withDiscardingTaskGroup { group in
            let slots = AsyncSemaphore(permits: scenario.concurrency)
            var random = SplitMix64(seed: 0)
            for index in 0..<scenario.requests {
                try? await slots.acquire()
                let key = Int(random.next() % UInt64(scenario.keys))
                let faulty = scenario.originFaultEvery.map { index % $0 == 0 } ?? false
                let fault = faulty ? LiveReplay.faults[index / 5 % LiveReplay.faults.count] : nil
                let url = "https://stress.example/\(key).img"
                let request = ImageRequest(
                    url: url, fetchURL: origin.url(for: images[key], fault: fault), box: .init(width: 400, height: 400))
                let expectedWidth = images[key].width
                group.addTask {
                    defer { slots.release() }
                    do {
                        let response = try await pipeline.image(for: request)
                        tally.withLock { $0.images += 1; if response.image.source.width != expectedWidth { $0.wrong += 1 } }
                    } catch {
                        tally.withLock { $0.errors += 1 }
                    }
                }
            }
        }
        stopWarnings.withLock { $0 = true }
        let warnings = await warner.value
        disk.flushMaintenance()
        let counted = tally.withLock { $0 }
        let memoryAtRest = pipeline.memoryCache.totalCost
        let diskAtRest = disk.totalBytes
        var violations: [String] = []
        let unanswered = scenario.requests - counted.images - counted.errors
        if unanswered != 0 { violations.append("\(unanswered) requests were never answered") }
        if counted.wrong > 0 { violations.append("\(counted.wrong) answers showed another key's picture") }
        if memoryAtRest > scenario.memoryBytes { violations.append("memory holds \(memoryAtRest) B at rest, limit \(scenario.memoryBytes) B") }
        if diskAtRest > scenario.diskBytes { violations.append("disk holds \(diskAtRest) B at rest, limit \(scenario.diskBytes) B") }
        if scenario.originFaultEvery == nil, scenario.kind != .diskFaults, counted.errors > 0 {
            violations.append("\(counted.errors) requests failed with no origin faults switched on")
        }
        if counted.images == 0 { violations.append("no request got an image") }
        // Closed before the folder goes: the disk tier would otherwise save its order into it
        // whenever the pipeline's last reference went, at times while it was being removed.
        pipeline.close()
        return StressReport(
            scenario: scenario.description, requests: scenario.requests, images: counted.images, typedErrors: counted.errors,
            unanswered: unanswered, wrongImages: counted.wrong, warnings: warnings, memoryCostAtRest: memoryAtRest,
            memoryLimit: scenario.memoryBytes, diskBytesAtRest: diskAtRest, diskLimit: scenario.diskBytes,
            seconds: (ContinuousClock.now - start).seconds, peakResidentBytes: ProcessMetrics.peakResidentBytes, violations: violations)
    }

    struct Tally {
        var images = 0
        var errors = 0
        var wrong = 0
    }
}
