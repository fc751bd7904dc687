import Foundation

/// What a thumbnail will cost in memory, known before decoding from the
/// source's header and the box: the one cost model the simulator and the live
/// pipeline share. `Thumbnailer` produces exactly this size (tested for every
/// format and the datasets' shapes), so a simulated memory tier fills as the
/// live one does.
public struct ThumbnailCost: Sendable, Hashable {
    public let width: Int
    public let height: Int
    /// 3 (RGB) or 4 (RGBA): the thumbnailer always writes 8-bit sRGB.
    public let bands: Int

    /// Decoded bytes: the memory-tier cost.
    public var bytes: Int { width * height * bands }

    /// The thumbnail of a `width`×`height` source (after EXIF orientation)
    /// that fits `box`.
    public init(sourceWidth width: Int, sourceHeight height: Int, hasAlpha: Bool, fitting box: ThumbnailRequest) {
        let size = box.fittedSize(width: width, height: height)
        self.width = size.width
        self.height = size.height
        bands = hasAlpha ? 4 : 3
    }

    /// Estimated bytes of the thumbnail re-encoded for the disk tier: the
    /// simulator's stand-in for a size it cannot know without encoding. About
    /// 1.5 bits per pixel for JPEG at quality 80 on photographs, 4 for
    /// lossless formats; only disk byte limits under the `thumbnails` and
    /// `both` policies depend on it.
    public func estimatedEncodedBytes(as format: EncodedFormat) -> Int {
        let pixels = width * height
        switch format.imageFormat {
        case .jpeg, .webp, .heic, .avif: return max(pixels * 3 / 16, 1)
        case .png, .gif: return max(pixels * bands / 2, 1)
        }
    }
}
