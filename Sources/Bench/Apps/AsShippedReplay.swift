import Foundation
import ImagePipeline
import CacheSimulation

/// Drives `AsShippedImageCache` with a recorded workload one request at a time,
/// as the app's cells would: a memory warning empties the memory cache, a
/// relaunch starts a cold one, a new user starts with an empty folder, a
/// request the app cancelled has its download cancelled before it answers, an
/// offline request's download fails. Says where each request was answered, in
/// the simulator's terms, so the port and the preset's simulation can be compared request by request.
public enum AsShippedReplay {
    public static func answers<Image: Sendable>(
        _ preset: AppPreset, _ workload: RecordedWorkload, fetcher: any ImageFetcher, folder: URL,
        decode: @escaping (Data, _ writesFile: Bool) -> (image: Image, cost: Int, file: Data?)?
    ) async throws -> [CacheSimulator.Answer] {
        let network = AppReplayNetwork(fetcher)
        let cache = try AsShippedImageCache(preset: preset, folder: folder, fetcher: network, decode: decode)
        var answers: [CacheSimulator.Answer] = []
        var nextEvent = 0
        for (index, request) in workload.requests.enumerated() {
            while nextEvent < workload.events.count, workload.events[nextEvent].beforeRequest <= index {
                switch workload.events[nextEvent].kind {
                case .memoryWarning: cache.memoryWarning()
                case .relaunch: cache.relaunch()
                case .newSession: try cache.newDevice()
                case .invalidate: break  // no as-shipped app invalidates
                }
                nextEvent += 1
            }
            let cancels = request.cancelledAfter != nil
            network.offline.store(request.offline, ordering: .relaxed)
            network.holdsUntilCancelled.store(cancels, ordering: .relaxed)
            answers.append(await cache.load(url: workload.urls[Int(request.url)], abandoned: cancels))
        }
        return answers
    }

    /// The port of `preset` live, on the loopback origin with libvips decoding whole
    /// images and re-encoding the disk files, beside the preset's simulation (one request in flight).
    /// Its memory cache holds each decoded picture's size, not its pixels: the apps held the pixels,
    /// without limit (63 GB for Picterest's whole dataset), which no machine running this can.
    public static func live(
        _ preset: AppPreset, _ workload: RecordedWorkload, store: String, progress: ProgressLine = ProgressLine()
    ) async throws -> AppLiveCheck {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("icb-as-shipped-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let thumbnailer = Thumbnailer()
        let whole = ThumbnailRequest(width: 1 << 16, height: 1 << 16)
        let format = preset.originalDiskFormat ?? .jpeg(quality: 90)
        let (live, seconds) = try await LiveReplay.onLoopback(workload, store: store, label: preset.name, progress: progress) { loopback in
            try await answers(preset, workload, fetcher: loopback, folder: folder) { data, writesFile -> (image: HeldImage, cost: Int, file: Data?)? in
                guard let image = try? thumbnailer.thumbnail(data, fitting: whole) else { return nil }
                return (HeldImage(width: image.width, height: image.height), image.cost, writesFile ? try? image.encoded(as: format) : nil)
            }
        }
        return AppLiveCheck(preset: preset, workload: workload, live: live, seconds: seconds)
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
    /// Requests by where they were answered ("memory", "disk", "origin", "unanswered", …), live and simulated.
    public var live: [String: Int]
    public var simulated: [String: Int]
    /// Requests answered differently.
    public var differingRequests: Int
    public var seconds: Double

    /// Compares `live` with the preset's simulation of `workload`, one request in flight.
    init(preset: AppPreset, workload: RecordedWorkload, live: [CacheSimulator.Answer], seconds: Double) {
        var configuration = preset.configuration
        configuration.inFlight = 0
        let simulated = CacheSimulator.answers(preset.trace(of: workload), configuration).answers
        func counts(_ answers: [CacheSimulator.Answer]) -> [String: Int] {
            Dictionary(answers.map { ("\($0)", 1) }, uniquingKeysWith: +)
        }
        self.preset = preset.name
        trace = workload.name
        sessions = workload.sessions
        requests = live.count
        self.live = counts(live)
        self.simulated = counts(simulated)
        differingRequests = zip(live, simulated).filter { $0 != $1 }.count + abs(live.count - simulated.count)
        self.seconds = seconds
    }
}
