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
final class AsShippedImageCache<Image: Sendable> {
    private let preset: AppPreset
    private var memory: MemoryCache<String, Image>
    private let folder: URL?
    private let fetcher: any ImageFetcher
    private let decode: Decode

    /// Makes what the memory cache holds and its cost from an image's bytes and, when asked
    /// (`true`), the file the app writes for it; nil when the bytes are no image.
    typealias Decode = (Data, _ writesFile: Bool) -> (image: Image, cost: Int, file: Data?)?

    /// `folder` holds the disk files when the preset has a disk.
    init(preset: AppPreset, folder: URL, fetcher: any ImageFetcher, decode: @escaping Decode) throws {
        self.preset = preset
        memory = Self.memoryCache(preset)
        self.folder = preset.disk == nil ? nil : folder
        if let folder = self.folder { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        self.fetcher = fetcher
        self.decode = decode
    }

    private static func memoryCache(_ preset: AppPreset) -> MemoryCache<String, Image> {
        MemoryCache(.init(limits: preset.memoryLimits, policy: preset.policy))
    }

    /// Loads one image as a cell asks for it; `abandoned` says the cell is reused
    /// before the download answers (the fetch is cancelled). Says where it was answered.
    func load(url: String, abandoned: Bool) async -> CacheSimulator.Answer {
        let memoryKey = preset.memoryKey.key(for: url)
        if memory.value(for: memoryKey) != nil { return .memory }
        let file = folder.map { $0.appendingPathComponent(DiskFileName.of((preset.diskKey ?? preset.memoryKey).key(for: url))) }
        if let file, let data = try? Data(contentsOf: file), let decoded = decode(data, false) {
            _ = memory.insert(decoded.image, for: memoryKey, cost: decoded.cost)
            return .disk
        }
        let download = Task { [fetcher] in try await fetcher.fetch(url) }
        if abandoned { download.cancel() }
        let fetched: FetchedImage
        do { fetched = try await download.value } catch is CancellationError { return .cancelled } catch { return .offline }
        guard let decoded = decode(fetched.data, file != nil) else { return .offline }
        _ = memory.insert(decoded.image, for: memoryKey, cost: decoded.cost)
        if let file, let bytes = decoded.file { try? bytes.write(to: file) }
        return .origin
    }

    /// A memory warning: every as-shipped app empties its cache (`purgeAll`).
    func memoryWarning() { memory.removeAll() }

    /// The app starts again: memory is cold, the files stay.
    func relaunch() { memory = Self.memoryCache(preset) }

    /// Another user's device: nothing cached anywhere.
    func newDevice() throws {
        relaunch()
        if let folder {
            try FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }
}
