import ImagePipeline
import CacheSimulation

/// A recommendation written as code for one image library, with what that
/// library cannot express.
public struct SettingsSnippet: Codable, Sendable, Equatable {
    public var library: String
    public var code: String
    /// Recommended settings the library has no knob for, and what it does instead.
    public var cannotExpress: [String]
}

extension Recommendation {
    /// The settings for this library, Nuke, Kingfisher and SDWebImage.
    func makeSnippets() -> [SettingsSnippet] {
        [imagePipeline, nuke, kingfisher, sdWebImage]
    }

    private var diskLimit: Int { diskBytes ?? ReplayDefaults.diskBytes }
    private var isLRU: Bool { policy == EvictionPolicyKind.lru.description }
    private var trimsOnWarning: Bool { warningReaction != WarningReaction(.purgeAll).description }
    /// Seven days: Kingfisher's and SDWebImage's default disk age, far beyond any reuse the traces show.
    private var diskAgeSeconds: Int { 7 * 24 * 3_600 }

    private var imagePipeline: SettingsSnippet {
        let key = CacheKeyStrategy(name: keyStrategy) ?? ReplayDefaults.keyStrategy
        let reaction = WarningReaction(name: warningReaction)?.policy.warning ?? .purgeAll
        return SettingsSnippet(library: "ImagePipeline (this package)", code: """
            let configuration = ImagePipeline.Configuration(
                memory: .init(limits: CacheLimits(costLimit: \(memoryBytes), maxEntryFraction: \(maxEntryFraction)), policy: \(Self.swift(policy))),
                disk: DiskCache.Configuration(directory: cachesFolder, byteLimit: \(diskLimit)),
                keyStrategy: CacheKeyStrategy(.\(key.base.rawValue), includesProcessing: \(key.includesProcessing)))
            let pipeline = try ImagePipeline(configuration, fetcher: fetcher)
            let warnings = MemoryPressureMonitor(
                source: pressureSource, policy: MemoryPressurePolicy(warning: \(Self.swift(reaction)), critical: .purgeAll),
                responders: [pipeline])
            """, cannotExpress: [])
    }

    private var nuke: SettingsSnippet {
        var gaps: [String] = []
        if !isLRU { gaps.append("policy \(policy): ImageCache evicts least recently used only") }
        if trimsOnWarning { gaps.append("warning reaction \(warningReaction): ImageCache removes everything on a memory warning") }
        gaps.append("keys: Nuke keys by the URL as written plus processors; strip volatile query items (ixid, utm_*) with ImageRequest's userInfo[.imageIdKey]")
        return SettingsSnippet(library: "Nuke", code: """
            ImageCache.shared.costLimit = \(memoryBytes)
            ImageCache.shared.countLimit = Int.max
            ImageCache.shared.entryCostLimit = \(maxEntryFraction)
            ImageCache.shared.ttl = nil
            let dataCache = try DataCache(name: "images")
            dataCache.sizeLimit = \(diskLimit)
            """, cannotExpress: gaps)
    }

    private var kingfisher: SettingsSnippet {
        var gaps = ["policy \(policy): MemoryStorage sits on NSCache, whose eviction order is unspecified"]
        if maxEntryFraction < 1 { gaps.append("per-entry cap \(maxEntryFraction): no such limit") }
        if trimsOnWarning { gaps.append("warning reaction \(warningReaction): the memory storage is cleared on a memory warning") }
        return SettingsSnippet(library: "Kingfisher", code: """
            let cache = ImageCache.default
            cache.memoryStorage.config.totalCostLimit = \(memoryBytes)
            cache.memoryStorage.config.countLimit = .max
            cache.memoryStorage.config.expiration = .never
            cache.diskStorage.config.sizeLimit = \(diskLimit)
            cache.diskStorage.config.expiration = .seconds(\(diskAgeSeconds))
            """, cannotExpress: gaps)
    }

    private var sdWebImage: SettingsSnippet {
        var gaps = ["policy \(policy): SDMemoryCache is an NSCache, whose eviction order is unspecified"]
        if maxEntryFraction < 1 { gaps.append("per-entry cap \(maxEntryFraction): no such limit") }
        if trimsOnWarning { gaps.append("warning reaction \(warningReaction): the memory cache is emptied on a memory warning") }
        return SettingsSnippet(library: "SDWebImage", code: """
            let config = SDImageCache.shared.config
            config.maxMemoryCost = \(memoryBytes)
            config.maxMemoryCount = 0  // no count limit
            config.maxDiskSize = \(diskLimit)
            config.maxDiskAge = \(diskAgeSeconds)
            """, cannotExpress: gaps)
    }

    /// A policy as Swift source.
    static func swift(_ name: String) -> String {
        switch EvictionPolicyKind(name: name) {
        case .s3fifo(let threshold): ".s3fifo(moveToMainThreshold: \(threshold))"
        case .gdsf(let missCost): ".gdsf(missCost: .\(missCost == .download ? "download" : "uniform"))"
        case .wTinyLFU: ".wTinyLFU"
        case .wTinyLFULibCacheSim: ".wTinyLFULibCacheSim"
        case .twoQ: ".twoQ"
        case .nsCache: ".nsCache"
        case let kind?: "." + kind.description
        case nil: ".lru"
        }
    }

    /// A warning reaction as Swift source.
    static func swift(_ reaction: MemoryPressureReaction) -> String {
        switch reaction {
        case .ignore: ".ignore"
        case .purgeAll: ".purgeAll"
        case .trimToFraction(let fraction): ".trimToFraction(\(fraction))"
        case .trimIdle(let seconds): ".trimIdle(seconds: \(seconds))"
        }
    }
}
