import ImagePipeline
import CacheSimulation

/// One app's image pipeline as a named simulator configuration: the five apps
/// as they shipped (read from their documents: APPS.md), and the fixed pipeline
/// beside them. Each as-shipped preset lists its defects, each with the change
/// that fixes it, so a run can fix one at a time and say what each cost.
///
/// Where a document is silent the preset says what it assumes. Two
/// assumptions hold for all: an `NSCache` the app does not empty itself is
/// emptied by the system on a memory warning (iOS discards its objects under
/// pressure), and no app invalidates a picture when its content changes.
/// Every preset runs with `loadsInFlight` requests in flight together, as
/// cells load a screenful at once; an app with no coalescer downloads a URL
/// in flight again.
public struct AppPreset: Sendable, Hashable {
    /// "vanilladin-as-shipped", "articleproject-their-fix", "fixed".
    public var name: String
    public var memoryKey: CacheKeyStrategy
    /// The disk key's strategy, when it differs from the memory key's.
    public var diskKey: CacheKeyStrategy?
    public var memoryCost: RecordedWorkload.MemoryCost
    public var memoryLimits: CacheLimits
    public var policy: EvictionPolicyKind
    public var pressure: MemoryPressurePolicy
    public var disk: SimulationConfiguration.DiskTier?
    /// The format an app re-encodes downloaded originals to before writing them to disk.
    public var originalDiskFormat: EncodedFormat?
    public var coalescing: SimulationConfiguration.FetchCoalescing
    public var honoursInvalidations: Bool
    /// What is wrong with it, each with its fix; empty for the fixed pipeline.
    public var defects: [AppDefect]

    /// The simulator's configuration for this preset.
    public var configuration: SimulationConfiguration {
        SimulationConfiguration(
            limits: memoryLimits, policy: policy, pressure: pressure, warnings: .trace, disk: disk,
            honoursInvalidations: honoursInvalidations, inFlight: Self.loadsInFlight, coalescing: coalescing)
    }

    /// Requests in flight together: a page of cells (Vanilladin loads its page's 10 covers at once).
    public static let loadsInFlight = 10

    /// What the simulation trace depends on: presets alike in these share one.
    struct TraceShape: Hashable, Sendable {
        let memoryKey: CacheKeyStrategy
        let diskKey: CacheKeyStrategy?
        let memoryCost: RecordedWorkload.MemoryCost
        let originalDiskFormat: EncodedFormat?

        func trace(of workload: RecordedWorkload) -> SimulationTrace {
            workload.simulationTrace(strategy: memoryKey, diskStrategy: diskKey, memoryCost: memoryCost, originalDiskFormat: originalDiskFormat)
        }
    }

    var traceShape: TraceShape {
        TraceShape(memoryKey: memoryKey, diskKey: diskKey, memoryCost: memoryCost, originalDiskFormat: originalDiskFormat)
    }

    /// The workload keyed and costed as this preset keys and costs it.
    public func trace(of workload: RecordedWorkload) -> SimulationTrace { traceShape.trace(of: workload) }

    /// This preset with one defect fixed.
    public func fixing(_ defect: AppDefect) -> AppPreset {
        var fixed = self
        defect.fix.apply(to: &fixed)
        fixed.name = name + " −" + defect.id
        fixed.defects.removeAll { $0 == defect }
        return fixed
    }

    /// The library's pipeline with the bench's defaults, as the default run
    /// reports it, reacting to a warning by trimming to half (a critical one
    /// still purges): none of the five apps' defects.
    public static let fixed = AppPreset(
        name: "fixed", memoryKey: ReplayDefaults.keyStrategy, diskKey: nil, memoryCost: .thumbnail,
        memoryLimits: CacheLimits(costLimit: ReplayDefaults.memoryBytes), policy: ReplayDefaults.policy,
        pressure: WarningReaction(.trimToFraction(0.5)).policy,
        disk: .init(byteLimit: ReplayDefaults.diskBytes, policy: ReplayDefaults.diskPolicy), originalDiskFormat: nil,
        coalescing: .perWaiter, honoursInvalidations: true, defects: [])

    /// The as-shipped presets of the app a trace was recorded from (its
    /// header's `app`), the first as shipped; empty for a mix of apps.
    public static func asShipped(app: String) -> [AppPreset] {
        switch app.lowercased().filter({ !$0.isWhitespace }) {
        case "articleproject": [articleProject, articleProjectTheirFix]
        case "vanilladin": [vanilladin]
        case "headlines": [headlines]
        case "picterest": [picterest]
        case "mymarket": [myMarket]
        default: []
        }
    }

    /// Every as-shipped preset, for listings.
    public static let allAsShipped = [articleProject, articleProjectTheirFix, vanilladin, headlines, picterest, myMarket]

    // MARK: The apps

    /// An `NSCache` with neither cost nor count limit (`totalCostLimit` and `countLimit` 0).
    static let unlimited = CacheLimits(costLimit: .max, maxEntryFraction: 1)
    /// A disk folder nothing ever trims.
    static func unboundedDisk() -> SimulationConfiguration.DiskTier { .init(byteLimit: .max, policy: .originals) }
    static let raw = CacheKeyStrategy(.absoluteString)

    /// ArticleProject: memory → disk → network. Disk files named by the URL's
    /// `lastPathComponent`, the downloaded image re-encoded as JPEG at quality
    /// 0.4, never trimmed. The memory cache is assumed an `NSCache` keyed by
    /// the URL string holding the decoded image (the document names no key).
    public static let articleProject = AppPreset(
        name: "articleproject-as-shipped", memoryKey: raw, diskKey: CacheKeyStrategy(.lastPathComponent),
        memoryCost: .decodedOriginal, memoryLimits: unlimited, policy: .nsCache, pressure: .purgeAll,
        disk: unboundedDisk(), originalDiskFormat: .jpeg(quality: 40), coalescing: .none, honoursInvalidations: false,
        defects: [
            .diskKeyCollides, .noCoalescing, .wholeImagesInMemory, .unboundedMemory, .purgeOnWarning, .lossyDiskCopy, .unboundedDisk, .noInvalidation,
        ])

    /// ArticleProject with their fix: disk files named by all path components
    /// joined, which still ignores host and query.
    public static let articleProjectTheirFix: AppPreset = {
        var preset = articleProject
        preset.name = "articleproject-their-fix"
        preset.diskKey = CacheKeyStrategy(.joinedPath)
        return preset
    }()

    /// Vanilladin: `NSCache<NSString, UIImage>` keyed by the URL string, no
    /// cost or count limit; every memory warning removes all objects; no disk.
    public static let vanilladin = AppPreset(
        name: "vanilladin-as-shipped", memoryKey: raw, diskKey: nil, memoryCost: .decodedOriginal,
        memoryLimits: unlimited, policy: .nsCache, pressure: .purgeAll, disk: nil, originalDiskFormat: nil,
        coalescing: .none, honoursInvalidations: false,
        defects: [.noCoalescing, .wholeImagesInMemory, .unboundedMemory, .purgeOnWarning, .noDisk, .noInvalidation])

    /// Headlines: each image converted to PNG and written to the home folder,
    /// reused when a response carries the same URL (so offline launches show
    /// stored pictures); never trimmed. No memory cache: a cell reads and
    /// decodes the file each time.
    public static let headlines = AppPreset(
        name: "headlines-as-shipped", memoryKey: raw, diskKey: nil, memoryCost: .decodedOriginal,
        memoryLimits: CacheLimits(costLimit: 0, countLimit: 0), policy: .lru, pressure: .purgeAll,
        disk: unboundedDisk(), originalDiskFormat: .png(compression: 6), coalescing: .none, honoursInvalidations: false,
        defects: [.noMemoryCache, .noCoalescing, .pngOnDisk, .unboundedDisk, .noInvalidation])

    /// Picterest: a memory cache keyed by the URL, consulted before any
    /// request; the `ixid` each response changes defeats it. Its disk holds
    /// only the photos a user saved (by photo id), which the traces do not
    /// record, so browsing has no disk tier here.
    public static let picterest = AppPreset(
        name: "picterest-as-shipped", memoryKey: raw, diskKey: nil, memoryCost: .decodedOriginal,
        memoryLimits: unlimited, policy: .nsCache, pressure: .purgeAll, disk: nil, originalDiskFormat: nil,
        coalescing: .none, honoursInvalidations: false,
        defects: [.keyByRawURL, .noCoalescing, .wholeImagesInMemory, .unboundedMemory, .purgeOnWarning, .noDisk, .noInvalidation])

    /// My Market: `NSCache<NSURL, UIImage>` with no limit, and its coalescer
    /// as written (`FetchCoalescing.myMarketAsShipped`). Its cost counts
    /// encoded bytes, which would matter only under a `totalCostLimit` it never
    /// set; memory figures count the decoded images it holds.
    public static let myMarket = AppPreset(
        name: "mymarket-as-shipped", memoryKey: raw, diskKey: nil, memoryCost: .decodedOriginal,
        memoryLimits: unlimited, policy: .nsCache, pressure: .purgeAll, disk: nil, originalDiskFormat: nil,
        coalescing: .myMarketAsShipped, honoursInvalidations: false,
        defects: [.droppingCoalescer, .wholeImagesInMemory, .unboundedMemory, .purgeOnWarning, .noDisk, .noInvalidation])
}
