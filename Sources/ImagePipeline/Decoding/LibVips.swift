import CVips
import Foundation

/// Process-wide libvips settings, applied in one place.
///
/// The operation cache is off by default: the pipeline's own memory and disk
/// tiers decide what is kept, and a second hidden cache would blur what the
/// benchmark measures.
public struct LibVipsSettings: Sendable, Equatable {
    /// Most operations libvips keeps in its operation cache (0 disables it).
    public var operationCacheMaxOperations: Int
    /// Most bytes of pixels that cache may hold.
    public var operationCacheMaxBytes: Int
    /// Most open files that cache may hold.
    public var operationCacheMaxFiles: Int
    /// Worker threads per image pipeline; 0 means libvips' default (the core count).
    public var concurrency: Int
    /// Refuses loaders libvips marks untrusted (for example ImageMagick, JPEG XL on 8.14)
    /// so hostile bytes only meet the hardened loaders.
    public var blockUntrustedLoaders: Bool
    /// Lets libvips run the vector code it compiles at run time with liborc (shrinking,
    /// convolution). Off by default: the liborc 0.4.33 of Debian 12 hands out and frees code
    /// memory without its global lock (later releases take it), so libvips operations built
    /// and freed on several threads at once, as the pipeline's decodes are, can crash there
    /// (segfaults in `orc_code_allocate_codemem` and its neighbours, seen in live replays and
    /// a stress loop). On, shrinking a 1200×630 JPEG to 360 px wide takes about 0.6× the time.
    public var vectorised: Bool

    public init(
        operationCacheMaxOperations: Int = 0,
        operationCacheMaxBytes: Int = 0,
        operationCacheMaxFiles: Int = 0,
        concurrency: Int = 0,
        blockUntrustedLoaders: Bool = true,
        vectorised: Bool = false
    ) {
        self.operationCacheMaxOperations = operationCacheMaxOperations
        self.operationCacheMaxBytes = operationCacheMaxBytes
        self.operationCacheMaxFiles = operationCacheMaxFiles
        self.concurrency = concurrency
        self.blockUntrustedLoaders = blockUntrustedLoaders
        self.vectorised = vectorised
    }
}

/// The one entry point to libvips: starts it once per process and owns its settings.
public enum LibVips {
    private static let startupFailure: DecodingError? = {
        guard icb_init("imagecache-bench") == 0 else {
            return .libraryUnavailable(takeErrorMessage())
        }
        icb_capture_warnings()
        apply(settings)
        return nil
    }()

    /// Starts libvips if it is not running yet; safe to call from any thread.
    public static func start() throws(DecodingError) {
        if let startupFailure { throw startupFailure }
    }

    /// The settings in force, applied once when libvips starts.
    public static let settings = LibVipsSettings()

    /// Whether libvips has a loader for this format, asking `find` (which searches every
    /// loader class: a tenth of a small image's thumbnail) once per format.
    static func hasLoader(for format: ImageFormat, _ find: () -> Bool) -> Bool {
        if let known = loaders.withLock({ $0[format] }) { return known }
        let found = find()
        loaders.withLock { $0[format] = found }
        return found
    }

    private static let loaders = Locked<[ImageFormat: Bool]>([:])

    private static func apply(_ settings: LibVipsSettings) {
        icb_apply_settings(
            Int32(clamping: settings.operationCacheMaxOperations),
            settings.operationCacheMaxBytes,
            Int32(clamping: settings.operationCacheMaxFiles),
            Int32(clamping: settings.concurrency),
            settings.blockUntrustedLoaders ? 1 : 0,
            settings.vectorised ? 1 : 0
        )
    }

    /// Whether this libvips build has a loader for `format`.
    public static func canLoad(_ format: ImageFormat) -> Bool {
        guard (try? start()) != nil else { return false }
        return vips_type_find("VipsOperation", loader(for: format)) != 0
    }

    /// The libvips operation that loads `format` from memory: the one libvips' own
    /// search picks for that signature.
    static func loader(for format: ImageFormat) -> String {
        switch format {
        case .jpeg: "jpegload_buffer"
        case .png: "pngload_buffer"
        case .webp: "webpload_buffer"
        case .gif: "gifload_buffer"
        case .heic, .avif: "heifload_buffer"
        }
    }

    /// Live libvips objects (images, operations, blobs) in this process.
    public static var liveObjectCount: Int { Int(icb_live_object_count()) }

    /// Reads and clears the libvips error buffer in one call and keeps its last
    /// line. The buffer is process-wide and some loaders append warnings to it
    /// even when a load succeeds, so earlier lines may belong to another image;
    /// the newest line is the failure at hand.
    static func takeErrorMessage() -> String {
        guard let copy = vips_error_buffer_copy() else { return "unknown libvips error" }
        defer { g_free(copy) }
        let lines = String(cString: copy).split(whereSeparator: \.isNewline)
        let last = lines.last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return last.isEmpty ? "unknown libvips error" : last
    }
}
