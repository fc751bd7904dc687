import Foundation
import ImagePipeline
import CacheSimulation

/// The image loading of ArticleProject, Vanilladin, Headlines and Picterest as
/// they shipped, ported live from their presets (`AppPreset`): a memory cache
/// keyed by the raw URL with no limit (none at all in Headlines), emptied by
/// every memory warning; where the app has one, a folder of files named by the
/// preset's disk key (ArticleProject's `lastPathComponent`, their joined-path
/// fix, Headlines' URL), written with the downloaded picture re-encoded
/// (JPEG 0.4, PNG) and never trimmed; no coalescing, no invalidation.
/// Memory → disk → network, as each document describes. A bench-side baseline
/// the simulator's presets are checked against, never something to adopt.
/// (My Market's coalescer has its own port, `MyMarketImageCache`.)
///
/// Loads may run together (as the apps' cells did): each reports its decisions to `recorder`
/// under the lock that orders them (the memory cache's; the folder's, which its reads and
/// writes take), so the simulator can be run in the same order.
final class AsShippedImageCache<Image: Sendable>: Sendable {
    private let preset: AppPreset
    private let memory: Locked<MemoryCache<String, Image>>
    private let folder: URL?
    /// Orders the folder's reads and writes as the recorder hears them.
    private let folderLock = Locked(())
    private let fetcher: any ImageFetcher
    private let decode: Decode
    private let recorder: (any DecisionRecorder)?

    /// Makes what the memory cache holds and its cost from an image's bytes and, when asked
    /// (`true`), the file the app writes for it; nil when the bytes are no image.
    typealias Decode = @Sendable (Data, _ writesFile: Bool) -> (image: Image, cost: Int, file: Data?)?

    /// `folder` holds the disk files when the preset has a disk.
    init(
        preset: AppPreset, folder: URL, fetcher: any ImageFetcher, recorder: (any DecisionRecorder)? = nil,
        decode: @escaping Decode
    ) throws {
        self.preset = preset
        memory = Locked(Self.memoryCache(preset))
        self.folder = preset.disk == nil ? nil : folder
        if let folder = self.folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        self.fetcher = fetcher
        self.recorder = recorder
        self.decode = decode
    }

    private static func memoryCache(_ preset: AppPreset) -> MemoryCache<String, Image> {
        MemoryCache(.init(limits: preset.memoryLimits, policy: preset.policy))
    }

    /// Loads one image as a cell asks for it: `request` numbers it for the recorder; `offline`
    /// says the device had no network (the download fails at once), `abandoned` that the cell
    /// is reused before the download answers (the fetch is cancelled first). Says where it was answered.
    func load(url: String, request: Int, offline: Bool = false, abandoned: Bool) async -> CacheSimulator.Answer {
        let decisions = RequestDecisions(recorder, request)
        let memoryKey = preset.memoryKey.key(for: url)
        let memory = self.memory.withLock { $0 }
        if memory.value(for: memoryKey, whileLocked: { _ in decisions.record(.memoryLookup) }) != nil { return .memory }
        decisions.record(.flight)  // no coalescing: every miss goes on alone
        defer { decisions.record(.flightEnded) }
        let file = folder.map { $0.appendingPathComponent(DiskFileName.of((preset.diskKey ?? preset.memoryKey).key(for: url))) }
        if let file {
            let data = folderLock.withLock { _ in
                decisions.record(.diskReadOriginal)
                return try? Data(contentsOf: file)
            }
            if let data, let decoded = decode(data, false) {
                _ = memory.insert(decoded.image, for: memoryKey, cost: decoded.cost) { decisions.record(.memoryStored) }
                return .disk
            }
        }
        decisions.record(.download)
        if offline { return .offline }
        if abandoned { return .cancelled }  // the cell's reuse cancels the download before the origin answers
        let fetched: FetchedImage
        do { fetched = try await fetcher.fetch(url) } catch is CancellationError { return .cancelled } catch {
            decisions.record(.failed)
            return .offline
        }
        guard let decoded = decode(fetched.data, file != nil) else {
            decisions.record(.failed)
            return .offline
        }
        _ = memory.insert(decoded.image, for: memoryKey, cost: decoded.cost) { decisions.record(.memoryStored) }
        if let file, let bytes = decoded.file {
            folderLock.withLock { _ in
                if (try? bytes.write(to: file)) != nil { decisions.record(.originalStored, bytes: bytes.count) }
            }
        }
        return .origin
    }

    /// A memory warning: every as-shipped app empties its cache (`purgeAll`).
    func memoryWarning() { memory.withLock { $0 }.removeAll() }

    /// The app starts again: memory is cold, the files stay.
    func relaunch() { memory.withLock { $0 = Self.memoryCache(preset) } }

    /// Another user's device: nothing cached anywhere.
    func newDevice() throws {
        relaunch()
        if let folder {
            try FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }
}
