import Foundation
import HTTPImageLoading
import ImagePipeline
import OriginServer
import CacheSimulation

/// The live pipeline (libvips, a disk tier in a temporary directory, HTTP to the
/// loopback origin) driven by a recorded workload: its order, its timing
/// compressed, its cancellations, relaunches (a new pipeline on the same disk),
/// new devices (a new disk), memory warnings and invalidations.
public enum LiveReplay {
    static let faults: [OriginFault] = [.serverError, .truncated, .reset, .htmlBody, .wrongContentType, .notFound]

    public static func run(
        _ full: RecordedWorkload, options: LiveReplayOptions, progress: ProgressLine = ProgressLine()
    ) async throws -> LiveReplayReport {
        try await measured(full, options: options, progress: progress).report
    }

    /// The replay's report, with each thumbnail it made and each disk hit it read, for a calibration across traces.
    static func measured(
        _ full: RecordedWorkload, options: LiveReplayOptions, progress: ProgressLine
    ) async throws -> (report: LiveReplayReport, decodes: [DeviceCalibration.Decode], reads: [DeviceCalibration.Read]) {
        var workload = options.sessionLimit.map { full.prefix(sessions: $0) } ?? full
        workload = options.requestLimit.map { workload.prefix($0) } ?? workload
        let latency = options.latencyMilliseconds > 0
            ? LatencyModel(otherHosts: .init(medianMilliseconds: options.latencyMilliseconds)) : .none
        // A folder of this replay's own: replays at once in one process each have theirs, and one left
        // by an ended process of the same number is neither reused nor removed.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imagecache-bench-replay-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let trace = workload.simulationTrace(strategy: options.keyStrategy)
        let shaping = try options.network.map { try LinkShaping(network: $0, hosts: trace.hostNames, method: options.shaping) }
        return try await withLoopbackOrigin(
            store: options.originStore, latency: latency,
            connectionsPerHost: shaping?.connectionsPerHost ?? max(options.concurrency, 8), requestTimeout: options.requestTimeout,
            shaping: shaping
        ) { origin, http in
            let driver = try Driver(
                workload: workload, trace: trace, options: options, origin: origin, fetcher: ReplayFetcher(http), scratch: scratch,
                progress: progress)
            let images = driver.images, started = ContinuousClock.now
            try await origin.prepare(images) { done in
                guard done % 16 == 0, done > 0 else { return }
                // Only the pictures of the requests replayed; ones already in the store come at once.
                let seconds = (ContinuousClock.now - started).seconds
                let left = seconds / Double(done) * Double(images.count - done)
                progress.update("replay: the origin's pictures \(done)/\(images.count), about \(Int(left.rounded())) s left")
            }
            let report = try await driver.replay(shaping: shaping)
            let measured = driver.measurements.withLock { $0 }
            return (report, measured.decodes, measured.reads)
        }
    }

    /// Runs `body` with the loopback origin (its pictures kept in `store`) and an HTTP client,
    /// both shut down afterwards, whether `body` returns or throws.
    /// With `shaping`, the origin listens once per host and paces its answers to the network.
    static func withLoopbackOrigin<Result: Sendable>(
        store: String, latency: LatencyModel = .none, connectionsPerHost: Int = 8, requestTimeout: Duration? = RequestTimeout.standard,
        shaping: LinkShaping? = nil, _ body: (OriginServer, HTTPImageFetcher) async throws -> Result
    ) async throws -> Result {
        try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
        let origin = try await OriginServer.start(.init(
            storeDirectory: store, storeByteLimit: 4 << 30, latency: latency, link: shaping?.link,
            listeners: shaping?.listeners ?? 1))
        // No timeout is a day's: longer than any replay.
        let timeout = requestTimeout ?? .seconds(86_400)
        let http = HTTPImageFetcher(.init(connectionsPerHost: connectionsPerHost, connectTimeout: timeout, requestTimeout: timeout))
        do {
            let result = try await body(origin, http)
            try await http.shutdown()
            await origin.stop()
            return result
        } catch {
            try? await http.shutdown()
            await origin.stop()
            throw error
        }
    }

    /// The loopback URL of each of the workload's URLs (by id), and the pictures the origin
    /// serves: the first request of each URL names its picture and the bytes it downloaded, which
    /// the origin pads the picture to. A URL's host (`hosts()`) is named in its loopback URL, which
    /// goes to the origin's listener for that host, if it has one each.
    static func originURLs(of workload: RecordedWorkload, on origin: OriginServer) -> (urls: [String], images: [ImageDescriptor]) {
        var urls = [String](repeating: "", count: workload.urls.count)
        var images: [ImageDescriptor] = []
        let hosts = workload.hosts()
        for request in workload.requests where urls[Int(request.url)].isEmpty {
            let descriptor = ImageDescriptor(
                contentID: workload.contents[Int(request.content)], width: Int(request.width), height: Int(request.height),
                format: request.format ?? .jpeg)
            let host = Int(hosts.ofURL[Int(request.url)])
            urls[Int(request.url)] = origin.url(for: descriptor, host: hosts.names[host], listener: host, bytes: request.bytes)
            images.append(descriptor)
        }
        return (urls, images)
    }
}

extension RecordedWorkload.Event.Kind {
    /// Whether the app's process ends here (a relaunch or another device).
    var endsLaunch: Bool {
        switch self {
        case .relaunch, .newDevice: true
        case .memoryWarning, .invalidate: false
        }
    }
}

extension ImagePipeline.Statistics {
    mutating func add(_ other: ImagePipeline.Statistics) {
        requests += other.requests
        memoryHits += other.memoryHits
        diskHits += other.diskHits
        originLoads += other.originLoads
        joined += other.joined
        failures += other.failures
        cancellations += other.cancellations
        staleDiscarded += other.staleDiscarded
    }
}
