import CVips
import Foundation

/// Formats a thumbnail can be re-encoded to, for a disk tier.
public enum EncodedFormat: Sendable, Hashable {
    /// JPEG at a quality of 1–100; an alpha band is flattened onto white.
    case jpeg(quality: Int)
    /// PNG at a zlib compression level of 0–9 (lossless).
    case png(compression: Int)
    /// WebP at a quality of 1–100, or lossless.
    case webp(quality: Int, lossless: Bool = false)
    /// GIF (palette, 8 bits).
    case gif
    /// HEIC (HEVC) at a quality of 1–100, where libheif has an encoder.
    case heic(quality: Int)
    /// AVIF (AV1) at a quality of 1–100, where libheif has an encoder.
    case avif(quality: Int)

    /// The usual encoding of `format`: `quality` for the lossy ones, PNG at level 6.
    public init(_ format: ImageFormat, quality: Int) {
        switch format {
        case .jpeg: self = .jpeg(quality: quality)
        case .png: self = .png(compression: 6)
        case .webp: self = .webp(quality: quality)
        case .gif: self = .gif
        case .heic: self = .heic(quality: quality)
        case .avif: self = .avif(quality: quality)
        }
    }

    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .gif: .gif
        case .heic: .heic
        case .avif: .avif
        }
    }
}

extension DecodedImage {
    /// The thumbnail re-encoded, metadata stripped.
    public func encoded(as format: EncodedFormat) throws(DecodingError) -> Data {
        try LibVips.start()
        return try withBytes(pixels) { bytes throws(DecodingError) in
            do throws(VipsFailure) {
                // Wraps the bytes without copying; the handle dies before `bytes` does.
                let image = try VipsImageHandle { out in
                    out.pointee = vips_image_new_from_memory(
                        bytes.baseAddress, bytes.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
                    return out.pointee == nil ? -1 : 0
                }
                return try encode(image, as: format)
            } catch let failure {
                throw .encodingFailed(failure.message)
            }
        }
    }
}

/// Saves a libvips image to an in-memory file of the given format. Metadata is
/// stripped unless `keepsMetadata` (synthesis keeps EXIF orientation that way).
package func encode(
    _ image: borrowing VipsImageHandle, as format: EncodedFormat, keepsMetadata: Bool = false, progressive: Bool = false
) throws(VipsFailure) -> Data {
    let strip: Int32 = keepsMetadata ? 0 : 1
    var buffer: UnsafeMutableRawPointer?
    var length = 0
    let status: Int32
    switch format {
    case .jpeg(let quality):
        // Four bands are RGBA unless they are CMYK ink, which JPEG keeps as it is.
        let hasAlpha = image.bands == 2 || (image.bands == 4 && vips_image_get_interpretation(image.pointer) != VIPS_INTERPRETATION_CMYK)
        func save(_ opaque: UnsafeMutablePointer<VipsImage>) -> Int32 {
            icb_jpegsave_buffer(opaque, &buffer, &length, Int32(clamping: quality), progressive ? 1 : 0, strip)
        }
        if hasAlpha {
            let flattened = try image.map { icb_flatten_white($0, $1) }
            status = save(flattened.pointer)
        } else {
            status = save(image.pointer)  // saved as it is: a copy first was one more libvips operation
        }
    case .png(let compression):
        status = icb_pngsave_buffer(image.pointer, &buffer, &length, Int32(clamping: compression), strip)
    case .webp(let quality, let lossless):
        status = icb_webpsave_buffer(image.pointer, &buffer, &length, Int32(clamping: quality), lossless ? 1 : 0, strip)
    case .gif:
        status = icb_gifsave_buffer(image.pointer, &buffer, &length)
    case .heic(let quality):
        status = icb_heifsave_buffer(image.pointer, &buffer, &length, Int32(clamping: quality), VIPS_FOREIGN_HEIF_COMPRESSION_HEVC)
    case .avif(let quality):
        status = icb_heifsave_buffer(image.pointer, &buffer, &length, Int32(clamping: quality), VIPS_FOREIGN_HEIF_COMPRESSION_AV1)
    }
    guard status == 0, let buffer else {
        throw VipsFailure(message: LibVips.takeErrorMessage())
    }
    return Data(bytesNoCopy: buffer, count: length, deallocator: .custom { pointer, _ in g_free(pointer) })
}
