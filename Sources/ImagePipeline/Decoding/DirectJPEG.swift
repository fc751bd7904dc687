import CJPEG
import Foundation

/// A JPEG that fits its box as it is, decoded by libjpeg without libvips' pipeline around it
/// (`icb_jpeg_decode_rgb`): the same pixels as libvips' load, in about a tenth of the time
/// for a cover-sized image. Declines (nil) whatever libvips' load would treat differently.
enum DirectJPEG {
    /// More scans than this go to libvips: libjpeg's own progressive encodings use at most
    /// 10, and each scan is another pass over the whole image.
    static let maxScans = 100

    static func decode(
        _ bytes: UnsafeRawBufferPointer, fitting request: ThumbnailRequest, limits: DecodingLimits, maxScans: Int = maxScans
    ) -> DecodedImage? {
        guard !request.allowsUpscaling, let base = bytes.baseAddress else { return nil }
        var decoded = icb_jpeg_rgb()
        guard icb_jpeg_decode_rgb(base, bytes.count, request.sideFittingEitherWayRound, limits.maxPixels, Int32(clamping: maxScans), &decoded) == 1, let pixels = decoded.pixels else {
            return nil
        }
        let width = Int(decoded.width), height = Int(decoded.height)
        return DecodedImage(
            width: width, height: height, bands: 3,
            pixels: Data(bytesNoCopy: pixels, count: decoded.length, deallocator: .free),
            source: ImageHeader(format: .jpeg, width: width, height: height, byteCount: bytes.count))
    }
}
