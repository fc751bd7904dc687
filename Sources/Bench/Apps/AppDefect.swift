import ImagePipeline
import CacheSimulation

/// One defect of an app's pipeline as shipped, and the change that fixes it
/// (what the fixed pipeline does instead). A pipeline file names its defects by `id`.
public struct AppDefect: Sendable, Hashable {
    /// Short and stable: "disk-key", "unbounded-memory"; used in figure names.
    public let id: String
    public let summary: String
    let fix: Fix

    enum Fix: Sendable, Hashable {
        /// Keys by the normalised URL (volatile query items such as `ixid` dropped), with or without the box as before.
        case normalizedKey
        case diskKey(CacheKeyStrategy)
        /// Thumbnails of the cell's box in memory, keyed with it.
        case thumbnails
        /// The fixed pipeline's memory limits and policy.
        case fixedMemory
        /// The fixed pipeline's reaction to warnings.
        case fixedPressure
        /// The fixed pipeline's disk tier.
        case fixedDisk
        case originalDiskFormat(EncodedFormat?)
        case coalescing(SimulationConfiguration.FetchCoalescing)
        case honoursInvalidations

        func apply(to preset: inout AppPreset, as fixed: AppPreset) {
            switch self {
            case .normalizedKey: preset.memoryKey = CacheKeyStrategy(.normalized, includesProcessing: preset.memoryKey.includesProcessing)
            case .diskKey(let strategy): preset.diskKey = strategy
            case .thumbnails:
                preset.memoryCost = .thumbnail
                preset.memoryKey = preset.memoryKey.withProcessing
            case .fixedMemory:
                preset.memoryLimits = fixed.memoryLimits
                preset.policy = fixed.policy
            case .fixedPressure: preset.pressure = fixed.pressure
            case .fixedDisk: preset.disk = fixed.disk
            case .originalDiskFormat(let format): preset.originalDiskFormat = format
            case .coalescing(let coalescing): preset.coalescing = coalescing
            case .honoursInvalidations: preset.honoursInvalidations = true
            }
        }
    }

    /// Every defect a pipeline file may name.
    public static let all: [AppDefect] = [
        diskKeyCollides, keyByRawURL, wholeImagesInMemory, unboundedMemory, purgeOnWarning, noDisk, unboundedDisk, lossyDiskCopy,
        pngOnDisk, noMemoryCache, droppingCoalescer, noCoalescing, noInvalidation,
    ]

    static let diskKeyCollides = AppDefect(
        id: "disk-key", summary: "disk files named by part of the URL: other URLs' pictures shown",
        fix: .diskKey(CacheKeyStrategy(.normalized)))
    static let keyByRawURL = AppDefect(
        id: "raw-url-key", summary: "keyed by the URL as written: a per-response token (ixid) defeats the cache",
        fix: .normalizedKey)
    static let wholeImagesInMemory = AppDefect(
        id: "whole-images", summary: "the whole decoded image held in memory, not a thumbnail of the cell's size",
        fix: .thumbnails)
    static let unboundedMemory = AppDefect(
        id: "unbounded-memory", summary: "no cost or count limit: memory grows until the system warns",
        fix: .fixedMemory)
    static let purgeOnWarning = AppDefect(
        id: "purge-on-warning", summary: "every memory warning empties the memory cache",
        fix: .fixedPressure)
    static let noDisk = AppDefect(
        id: "no-disk", summary: "no disk tier: every launch downloads again",
        fix: .fixedDisk)
    static let unboundedDisk = AppDefect(
        id: "unbounded-disk", summary: "the disk folder is never trimmed",
        fix: .fixedDisk)
    static let lossyDiskCopy = AppDefect(
        id: "jpeg-0.4-on-disk", summary: "downloaded images re-encoded as JPEG at quality 0.4: later launches show a degraded copy",
        fix: .originalDiskFormat(nil))
    static let pngOnDisk = AppDefect(
        id: "png-on-disk", summary: "downloaded JPEGs re-encoded as PNG on disk",
        fix: .originalDiskFormat(nil))
    static let noMemoryCache = AppDefect(
        id: "no-memory-cache", summary: "no memory cache: each cell reads and decodes its file again",
        fix: .fixedMemory)
    static let droppingCoalescer = AppDefect(
        id: "coalescer", summary: "a load that finds the URL's waiting entry is dropped, and the entry stays after the load",
        fix: .coalescing(.perWaiter))
    static let noCoalescing = AppDefect(
        id: "no-coalescing", summary: "no coalescer: a URL asked for again while in flight is downloaded again",
        fix: .coalescing(.perWaiter))
    static let noInvalidation = AppDefect(
        id: "no-invalidation", summary: "a picture whose content changed is still served from the cache",
        fix: .honoursInvalidations)
}
