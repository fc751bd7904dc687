import CVips
import Foundation

/// Limits that keep hostile or oversized images from costing memory.
public struct DecodingLimits: Sendable, Equatable {
    /// Images whose header claims more pixels are refused before decoding.
    public var maxPixels: Int
    /// Bodies larger than this are refused before anything reads them.
    public var maxBytes: Int

    public init(maxPixels: Int = 100_000_000, maxBytes: Int = 64 << 20) {
        self.maxPixels = maxPixels
        self.maxBytes = maxBytes
    }
}

/// Makes display-sized thumbnails from encoded bytes with libvips.
///
/// The header is read and checked first; then `vips_thumbnail_buffer` decodes
/// with shrink-on-load (JPEG and WebP decode straight to a fraction of their
/// size), so a 6000×4000 photo never exists at full size in memory. A JPEG that already
/// fits its box is decoded by libjpeg without libvips' pipeline around it (`DirectJPEG`):
/// the same pixels, a tenth of the time for a cover.
public struct Thumbnailer: Sendable {
    /// How pixels get from full size to the box.
    public enum Strategy: String, Sendable, CaseIterable {
        /// `vips_thumbnail_buffer`: the loader shrinks while decoding.
        case shrinkOnLoad = "shrink-on-load"
        /// Decode every pixel, then resize: what a naive pipeline does (for comparison).
        case fullDecode = "full-decode"
    }

    public var limits: DecodingLimits
    public var strategy: Strategy

    public init(limits: DecodingLimits = DecodingLimits(), strategy: Strategy = .shrinkOnLoad) {
        self.limits = limits
        self.strategy = strategy
    }

    /// Reads the format and dimensions, enforcing the limits, without decoding pixels.
    public func header(of data: Data) throws(DecodingError) -> ImageHeader {
        try withBytes(data) { bytes throws(DecodingError) in try open(bytes, as: checkedFormat(bytes)).header }
    }

    /// A thumbnail of `data` that fits `request`, keeping the aspect ratio.
    public func thumbnail(_ data: Data, fitting request: ThumbnailRequest) throws(DecodingError) -> DecodedImage {
        try withBytes(data) { bytes throws(DecodingError) in
            let format = try checkedFormat(bytes)
            if format == .jpeg, let image = DirectJPEG.decode(bytes, fitting: request, limits: limits) { return image }
            let opened = try open(bytes, as: format)
            let header = opened.header
            // libvips notices a PNG cut inside its last rows only now and then (the
            // read races its worker threads), so a cut PNG is refused before decoding.
            if header.format == .png, !ImageFormat.pngReachesIEND(bytes) {
                throw .truncated(.png, detail: "the body ends before the IEND chunk")
            }
            do throws(VipsFailure) {
                let image = try decode(bytes, to: request, opened)
                return try Self.finish(image, source: header)
            } catch let failure {
                throw Self.classify(failure, format: header.format, bytes: bytes)
            }
        }
    }

    // MARK: - Steps

    /// The format the bytes announce, once they have passed the byte limit and libvips has a
    /// loader for it.
    private func checkedFormat(_ bytes: UnsafeRawBufferPointer) throws(DecodingError) -> ImageFormat {
        try LibVips.start()
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= limits.maxBytes else { throw .tooManyBytes(count: bytes.count, limit: limits.maxBytes) }
        let format: ImageFormat
        switch ImageFormat.sniff(bytes) {
        case .image(let sniffed): format = sniffed
        case .nonImage(let kind): throw .notAnImage(kind)
        case .unknown: throw .unsupportedFormat(Self.loaderName(for: bytes) ?? "unknown signature")
        }
        guard LibVips.hasLoader(for: format, { Self.loaderName(for: bytes) != nil }) else {
            throw .unsupportedFormat("\(format.rawValue) (no loader for it in this libvips build)")
        }
        return format
    }

    /// The header, checked against the limits, and the image it was read from: opened for
    /// sequential decoding, which has not decoded a pixel yet.
    private func open(_ bytes: UnsafeRawBufferPointer, as format: ImageFormat) throws(DecodingError) -> OpenedImage {
        let image: VipsImageHandle
        do throws(VipsFailure) {
            image = try VipsImageHandle { out in
                icb_load_sequential(LibVips.loader(for: format), bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, out)
            }
        } catch let failure {
            throw Self.classify(failure, format: format, bytes: bytes)
        }
        let header = ImageHeader(format: format, width: image.width, height: image.height, byteCount: bytes.count)
        guard header.pixelCount <= limits.maxPixels else {
            throw .tooManyPixels(width: header.width, height: header.height, limit: limits.maxPixels)
        }
        return OpenedImage(header: header, image: image)
    }

    /// An image whose header was read and checked, and not a pixel decoded.
    private struct OpenedImage: ~Copyable {
        let header: ImageHeader
        let image: VipsImageHandle
    }

    private func decode(
        _ bytes: UnsafeRawBufferPointer, to request: ThumbnailRequest, _ opened: consuming OpenedImage
    ) throws(VipsFailure) -> VipsImageHandle {
        let header = opened.header
        let size = request.allowsUpscaling ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
        // Already within the box (a stored thumbnail, a small cover): nothing to
        // shrink, so a plain decode does the job with less machinery.
        let fits = max(header.width, header.height) <= Int(request.sideFittingEitherWayRound)
        // The image the header came from decodes as it is rendered, on this thread; one to be
        // turned is loaded again whole (turning reads out of order).
        if fits && !request.allowsUpscaling && icb_orientation(opened.image.pointer) <= 1 { return opened.image }
        switch fits && !request.allowsUpscaling ? .fullDecode : strategy {
        case .shrinkOnLoad:
            return try VipsImageHandle { out in
                icb_thumbnail_buffer(
                    bytes.baseAddress, bytes.count, request.pixelWidth, request.pixelHeight,
                    size, 0, VIPS_FAIL_ON_TRUNCATED, out)
            }
        case .fullDecode:
            let loaded = try VipsImageHandle { out in
                icb_load_full(LibVips.loader(for: header.format), bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, out)
            }
            let upright = try loaded.map { icb_autorot($0, $1) }
            let factor = min(
                Double(request.pixelWidth) / Double(upright.width),
                Double(request.pixelHeight) / Double(upright.height))
            guard factor < 1 || (request.allowsUpscaling && factor > 1) else { return upright }
            return try upright.map { icb_resize($0, $1, factor, factor) }
        }
    }

    /// Converts to 8-bit sRGB with 3 or 4 bands and copies the pixels out.
    private static func finish(_ image: consuming VipsImageHandle, source: ImageHeader) throws(VipsFailure) -> DecodedImage {
        if image.interpretation != VIPS_INTERPRETATION_sRGB || image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.map { icb_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        if image.bandFormat != VIPS_FORMAT_UCHAR {
            image = try image.map { icb_cast($0, $1, VIPS_FORMAT_UCHAR) }
        }
        if image.bands > 4 {
            image = try image.map { icb_extract_bands($0, $1, 0, 4) }
        }
        var length = 0
        guard let memory = icb_render_here(image.pointer, &length) else {
            throw VipsFailure(message: LibVips.takeErrorMessage())
        }
        let pixels = Data(bytesNoCopy: memory, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
        return DecodedImage(width: image.width, height: image.height, bands: image.bands, pixels: pixels, source: source)
    }

    // MARK: - Helpers

    private static func loaderName(for bytes: UnsafeRawBufferPointer) -> String? {
        vips_foreign_find_load_buffer(bytes.baseAddress, bytes.count).map { String(cString: $0) }
    }

    private static func classify(_ failure: VipsFailure, format: ImageFormat, bytes: UnsafeRawBufferPointer) -> DecodingError {
        let truncated = format.isStructurallyTruncated(bytes) ?? messageSuggestsTruncation(failure.message)
        if truncated {
            return .truncated(format, detail: failure.message)
        }
        return .corrupt(format, detail: failure.message)
    }
}

/// Gives typed-throwing code a view of the bytes (`Data.withUnsafeBytes` only rethrows untyped).
func withBytes<T, Failure: Error>(
    _ data: Data, _ body: (UnsafeRawBufferPointer) throws(Failure) -> T
) throws(Failure) -> T {
    let result: Result<T, Failure> = data.withUnsafeBytes { bytes in
        Result { () throws(Failure) in try body(bytes) }
    }
    return try result.get()
}
