import Foundation
import ImagePipeline
import CacheSimulation

/// Drives `AsShippedImageCache` with a recorded workload as the app's cells would, with
/// up to `inFlight` loads at once: a memory warning empties the memory cache, a relaunch
/// starts a cold one, a new user starts with an empty folder (each once the loads in flight
/// have answered), a request the app cancelled has its download cancelled before it answers,
/// an offline request's download fails. Says where each request was answered, in the
/// simulator's terms, and the order the port took its decisions in, so the port and the
/// preset's simulation can be compared request by request at any concurrency.
public enum AsShippedReplay {
    public static func answers<Image: Sendable>(
        _ preset: AppPreset, _ workload: RecordedWorkload, fetcher: any ImageFetcher, folder: URL, inFlight: Int = 1,
        decode: @escaping @Sendable (Data, _ writesFile: Bool) -> (image: Image, cost: Int, file: Data?)?
    ) async throws -> (answers: [CacheSimulator.Answer], order: ObservedOrder) {
        let recorder = ObservedOrderRecorder()
        let cache = try AsShippedImageCache(preset: preset, folder: folder, fetcher: fetcher, recorder: recorder, decode: decode)
        let answers = SharedLocked([CacheSimulator.Answer](repeating: .unanswered, count: workload.requests.count))
        let slots = AsyncSemaphore(permits: max(inFlight, 1))
        var nextEvent = 0
        try await withThrowingDiscardingTaskGroup { group in
            for (index, request) in workload.requests.enumerated() {
                if nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                    // Events meet the caches once the loads in flight have answered.
                    try await slots.withAllPermits {
                        while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                            recorder.event(nextEvent)
                            switch workload.events[nextEvent].kind {
                            case .memoryWarning: cache.memoryWarning()
                            case .relaunch: cache.relaunch()
                            case .newDevice: try cache.newDevice()
                            case .invalidate: break  // no as-shipped app invalidates
                            }
                            nextEvent += 1
                        }
                    }
                }
                try await slots.acquire()
                let url = workload.urls[Int(request.url)]
                group.addTask {
                    let answer = await cache.load(url: url, request: index, offline: request.offline, abandoned: request.cancelledAfter != nil)
                    answers.withLock { $0[index] = answer }
                    slots.release()
                }
            }
        }
        return (answers.withLock { $0 }, recorder.order)
    }

    /// The port of `preset` live, on the loopback origin with libvips decoding whole
    /// images and re-encoding the disk files, `inFlight` loads at once (the preset's loads in
    /// flight unless told), beside the preset's simulation run in the order the port took its decisions.
    /// Its memory cache holds each decoded picture's size, not its pixels: the apps held the pixels,
    /// without limit (63 GB for Picterest's whole dataset), which no machine running this can.
    public static func live(
        _ preset: AppPreset, _ workload: RecordedWorkload, store: String, inFlight: Int? = nil,
        progress: ProgressLine = ProgressLine()
    ) async throws -> AppLiveCheck {
        let inFlight = inFlight ?? preset.loadsInFlight
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icb-as-shipped-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnailer = Thumbnailer()
        let whole = ThumbnailRequest(width: 1 << 16, height: 1 << 16)
        let format = preset.originalDiskFormat ?? .jpeg(quality: 90)
        let (live, seconds) = try await LiveReplay.onLoopback(workload, store: store, label: preset.name, progress: progress) { loopback in
            try await answers(preset, workload, fetcher: loopback, folder: folder, inFlight: inFlight) { data, writesFile -> (image: HeldImage, cost: Int, file: Data?)? in
                guard let image = try? thumbnailer.thumbnail(data, fitting: whole) else { return nil }
                return (HeldImage(width: image.width, height: image.height), image.cost, writesFile ? try? image.encoded(as: format) : nil)
            }
        }
        return AppLiveCheck(preset: preset, workload: workload, live: live.answers, order: live.order, inFlight: inFlight, seconds: seconds)
    }
}

/// What the live port's memory cache keeps of a decoded picture.
struct HeldImage: Sendable {
    let width: Int
    let height: Int
}

/// An app's pipeline as shipped, ported live, beside the simulator's preset of it, request by request.
public struct AppLiveCheck: Codable, Sendable {
    public var preset: String
    public var trace: String
    public var sessions: Int
    public var requests: Int
    /// Loads the port ran at once.
    public var inFlight: Int
    /// Requests by where they were answered ("memory", "disk", "origin", "unanswered", …), live and simulated.
    public var live: [String: Int]
    public var simulated: [String: Int]
    /// Requests answered differently.
    public var differingRequests: Int
    /// The preset's in-flight model (the trace in its own order, `inFlight` at once): requests by
    /// where it answered them, and how many it answered differently from live.
    public var modelled: [String: Int]
    public var modelDifferingRequests: Int
    public var seconds: Double

    /// Compares `live` with the preset's simulation of `workload`: in the order the port took its
    /// decisions when it gives one, else one request in flight; and with the preset's in-flight model.
    init(
        preset: AppPreset, workload: RecordedWorkload, live: [CacheSimulator.Answer], order: ObservedOrder? = nil,
        inFlight: Int = 1, seconds: Double
    ) {
        var configuration = preset.configuration
        configuration.inFlight = 0
        let presetTrace = preset.trace(of: workload)
        let simulated = order.map { CacheSimulator.answers(presetTrace, configuration, observed: $0).answers }
            ?? CacheSimulator.answers(presetTrace, configuration).answers
        configuration.inFlight = inFlight
        let model = CacheSimulator.answers(presetTrace, configuration).answers
        func differing(_ answers: [CacheSimulator.Answer]) -> Int {
            zip(live, answers).filter { $0 != $1 }.count + abs(live.count - answers.count)
        }
        func counts(_ answers: [CacheSimulator.Answer]) -> [String: Int] {
            Dictionary(answers.map { ("\($0)", 1) }, uniquingKeysWith: +)
        }
        self.preset = preset.name
        trace = workload.name
        sessions = workload.sessions
        requests = live.count
        self.inFlight = inFlight
        self.live = counts(live)
        self.simulated = counts(simulated)
        differingRequests = differing(simulated)
        modelled = counts(model)
        modelDifferingRequests = differing(model)
        self.seconds = seconds
    }
}
