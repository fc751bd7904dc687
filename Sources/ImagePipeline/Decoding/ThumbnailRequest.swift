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

    private static func pixels(_ points: Int, _ scale: Double) -> Int32 {
        guard points > 0 else { return 10_000_000 }  // libvips' documented "ignore this side"
        let pixels = (Double(points) * (scale.isFinite ? max(scale, 0) : 1)).rounded()  // an odd scale never traps
        return Int32(max(1, min(pixels, Double(Int32.max))))
    }
}

extension ThumbnailRequest {
    /// The size a thumbnail of a `width`×`height` image comes out at: one
    /// shrink factor for both axes (the larger), as `vips_thumbnail` fits a box.
    public func fittedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (0, 0) }
        let shrink = max(Double(width) / Double(pixelWidth), Double(height) / Double(pixelHeight))
        let factor = allowsUpscaling ? shrink : max(shrink, 1)
        return (max(1, Int((Double(width) / factor).rounded())), max(1, Int((Double(height) / factor).rounded())))
    }
}
