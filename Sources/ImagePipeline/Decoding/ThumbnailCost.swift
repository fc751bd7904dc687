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
    /// that fits `box`; the format decides how libvips shrinks it on load.
    public init(sourceWidth width: Int, sourceHeight height: Int, format: ImageFormat?, hasAlpha: Bool, fitting box: ThumbnailRequest) {
        let size = box.fittedSize(width: width, height: height, format: format)
        self.width = size.width
        self.height = size.height
        bands = hasAlpha ? 4 : 3
    }

    /// Estimated bytes of the thumbnail re-encoded for the disk tier: the
    /// simulator's stand-in for a size it cannot know without encoding. About
    /// 1.5 bits per pixel for JPEG at quality 80 on photographs, scaled for
    /// other qualities as libvips' JPEG sizes scale on the origin's pictures,
    /// 4 bits for lossless formats; only disk byte limits under the
    /// `thumbnails` and `both` policies depend on it, and disk sizes of apps
    /// that re-encode what they download.
    public func estimatedEncodedBytes(as format: EncodedFormat) -> Int {
        let pixels = width * height
        switch format {
        case .jpeg(let quality), .webp(let quality, false), .heic(let quality), .avif(let quality):
            return max(Int((Double(pixels * 3 / 16) * Self.lossyScale(quality: quality)).rounded()), 1)
        case .webp(_, true), .png, .gif:
            return max(pixels * bands / 2, 1)
        }
    }

    /// Encoded size at `quality` against quality 80: measured with libvips on
    /// two 1200×630 synthesised photographs (`imagecache-bench synth`) at each
    /// tenth, interpolated between.
    static func lossyScale(quality: Int) -> Double {
        let measured: [(quality: Int, scale: Double)] = [
            (1, 0.15), (10, 0.165), (20, 0.207), (30, 0.253), (40, 0.307), (50, 0.390), (60, 0.503), (70, 0.692), (80, 1),
            (90, 3.12), (100, 17.1),
        ]
        let quality = min(max(quality, 1), 100)
        guard let upper = measured.firstIndex(where: { $0.quality >= quality }) else { return 1 }
        guard upper > 0 else { return measured[0].scale }
        let (q0, s0) = measured[upper - 1], (q1, s1) = measured[upper]
        return s0 + (s1 - s0) * Double(quality - q0) / Double(q1 - q0)
    }
}
