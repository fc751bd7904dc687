/// The box a thumbnail must fit, as a view asks for it: points and a screen scale.
public struct ThumbnailRequest: Hashable, Sendable, Codable {
    /// Box width in points; 0 leaves the width unconstrained.
    public var width: Int
    /// Box height in points; 0 leaves the height unconstrained.
    public var height: Int
    /// Screen scale (pixels per point), for example 2 or 3 on phones.
    public var scale: Double
    /// Whether an image smaller than the box is enlarged to fit it.
    public var allowsUpscaling: Bool

    public init(width: Int, height: Int, scale: Double = 1, allowsUpscaling: Bool = false) {
        self.width = width
        self.height = height
        self.scale = scale
        self.allowsUpscaling = allowsUpscaling
    }

    /// A square box.
    public static func square(_ side: Int, scale: Double = 1) -> ThumbnailRequest {
        ThumbnailRequest(width: side, height: side, scale: scale)
    }

    /// Box width in pixels; `Int32.max` when unconstrained.
    var pixelWidth: Int32 { Self.pixels(width, scale) }
    /// Box height in pixels; `Int32.max` when unconstrained.
    var pixelHeight: Int32 { Self.pixels(height, scale) }
    /// The longest side an image may have to fit the box either way round, so that an EXIF
    /// turn cannot take it out: such an image is decoded as it is, never shrunk.
    var sideFittingEitherWayRound: Int32 { min(pixelWidth, pixelHeight) }

    private static func pixels(_ points: Int, _ scale: Double) -> Int32 {
        guard points > 0 else { return 10_000_000 }  // libvips' documented "ignore this side"
        let pixels = (Double(points) * (scale.isFinite ? max(scale, 0) : 1)).rounded()  // an odd scale never traps
        return Int32(max(1, min(pixels, Double(Int32.max))))
    }
}

extension ThumbnailRequest {
    /// The size a thumbnail of a `width`×`height` image (after EXIF orientation) comes out at,
    /// computed as libvips 8.14's `vips_thumbnail` computes it: one shrink factor for both axes
    /// (the larger); a JPEG first shrunk on load by 2, 4 or 8 (its sides rounded down) and a
    /// WebP scaled on load; then `vips_resize`, which rounds each reduced side
    /// half up from its own floating-point scale. Those steps decide a pixel where a side lands
    /// on a half (a 3456×5184 photo fitting 549×825 comes out 549×823, not 549×824).
    public func fittedSize(width: Int, height: Int, format: ImageFormat? = nil) -> (width: Int, height: Int) {
        steps(width: width, height: height, format: format).fitted
    }

    /// What making the thumbnail of a `width`×`height` image costs the decoder, by the same
    /// steps as `fittedSize`: the pixels the loader makes, the pixels that go into a resize and
    /// those between its two passes (none when the loaded picture is already the thumbnail),
    /// and whether libvips makes it at all, or libjpeg alone (`DirectJPEG`: a JPEG that fits
    /// the box either way round).
    public func decodeWork(width: Int, height: Int, format: ImageFormat?) -> DecodeWork {
        let steps = steps(width: width, height: height, format: format)
        let loaded = steps.loaded.width * steps.loaded.height
        let resizes = steps.fitted != steps.loaded
        let direct = format == .jpeg && !allowsUpscaling && max(width, height) <= Int(sideFittingEitherWayRound)
        return DecodeWork(
            loadedPixels: loaded, resizedPixels: resizes ? loaded : 0,
            betweenPassesPixels: resizes ? steps.loaded.width * steps.fitted.height : 0, throughLibvips: !direct)
    }

    /// The size the loader makes (a JPEG shrunk on load, a WebP scaled on load) and the size the resize then fits.
    private func steps(width: Int, height: Int, format: ImageFormat?) -> (loaded: (width: Int, height: Int), fitted: (width: Int, height: Int)) {
        guard width > 0, height > 0 else { return ((0, 0), (0, 0)) }
        guard !allowsUpscaling else {
            // Enlarging goes through vips_affine; its sizes round to nearest.
            let shrink = max(Double(width) / Double(pixelWidth), Double(height) / Double(pixelHeight))
            return ((width, height), (max(1, Int((Double(width) / shrink).rounded())), max(1, Int((Double(height) / shrink).rounded()))))
        }
        var (loadedWidth, loadedHeight) = (width, height)
        let common = shrinks(width, height).horizontal
        switch format {
        case .jpeg:
            let factor = common >= 16 ? 8 : common >= 8 ? 4 : common >= 4 ? 2 : 1
            (loadedWidth, loadedHeight) = (width / factor, height / factor)  // libvips drops libjpeg's partial last block
        case .webp where common > 1:
            let scale = 1.0 / common
            (loadedWidth, loadedHeight) = (Int((Double(width) * scale).rounded(.toNearestOrEven)),
                                           Int((Double(height) * scale).rounded(.toNearestOrEven)))
        default: break
        }
        let (horizontal, vertical) = shrinks(loadedWidth, loadedHeight)
        func reduced(_ side: Int, _ shrink: Double) -> Int {
            let scale = max(1.0 / shrink, 1.0 / Double(side))
            return scale < 1 ? Int(Double(side) / (1.0 / scale) + 0.5) : side
        }
        return ((loadedWidth, loadedHeight), (reduced(loadedWidth, horizontal), reduced(loadedHeight, vertical)))
    }

    /// `vips_thumbnail_calculate_shrink` for a box that the image must fit, never enlarging.
    private func shrinks(_ width: Int, _ height: Int) -> (horizontal: Double, vertical: Double) {
        var horizontal = Double(width) / Double(pixelWidth), vertical = Double(height) / Double(pixelHeight)
        if horizontal < vertical { horizontal = vertical } else { vertical = horizontal }
        horizontal = min(max(1, horizontal), Double(width))
        vertical = min(max(1, vertical), Double(height))
        return (horizontal, vertical)
    }
}

/// The decoder's work for one thumbnail (`ThumbnailRequest.decodeWork`), kept in 13 bytes: a
/// simulation holds one per request.
public struct DecodeWork: Sendable, Hashable {
    private let loaded: UInt32
    private let resized: UInt32
    private let betweenPasses: UInt32
    /// Whether libvips makes the thumbnail; otherwise libjpeg decodes it as it is.
    public let throughLibvips: Bool

    /// Pixels the loader makes: the source's, or fewer where the format shrinks on load.
    public var loadedPixels: Int { Int(loaded) }
    /// Pixels that go into the resize to the thumbnail's size; 0 without one.
    public var resizedPixels: Int { Int(resized) }
    /// Pixels of the picture between the resize's two passes, one side reduced and the other
    /// not yet (the loaded width by the thumbnail's height); 0 without a resize. The second
    /// pass reads this many, each output pixel from a window as long as the shrink, so a
    /// picture shrunk a little costs more per pixel resized than one shrunk a lot.
    public var betweenPassesPixels: Int { Int(betweenPasses) }

    public init(loadedPixels: Int, resizedPixels: Int, betweenPassesPixels: Int = 0, throughLibvips: Bool) {
        loaded = UInt32(clamping: loadedPixels)
        resized = UInt32(clamping: resizedPixels)
        betweenPasses = UInt32(clamping: betweenPassesPixels)
        self.throughLibvips = throughLibvips
    }

    /// No decoder work known (a trace without pictures' sizes).
    public static let none = DecodeWork(loadedPixels: 0, resizedPixels: 0, throughLibvips: false)
}
