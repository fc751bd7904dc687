import Foundation

/// A decoded thumbnail: sRGB, 8 bits per band, 3 bands (RGB) or 4 (RGBA),
/// rows top to bottom with EXIF orientation already applied.
public struct DecodedImage: Sendable {
    public let width: Int
    public let height: Int
    /// 3 for RGB, 4 for RGBA.
    public let bands: Int
    /// Interleaved pixels, `width * height * bands` bytes.
    public let pixels: Data
    /// What the thumbnail was made from.
    public let source: ImageHeader

    /// A decoder of your own (`ImageDecoding`) makes its images with this: 3 or 4 bands, `pixels`
    /// holding `width * height * bands` bytes. The pipeline refuses one that does not
    /// (`DecodingError.corrupt`), so a wrong decoder never puts a wrong cost in memory.
    public init(width: Int, height: Int, bands: Int, pixels: Data, source: ImageHeader) {
        self.width = width
        self.height = height
        self.bands = bands
        self.pixels = pixels
        self.source = source
    }

    public var hasAlpha: Bool { bands == 4 }

    /// Whether it is what this type promises: a picture, 3 or 4 bands, every pixel's bytes.
    public var isWellFormed: Bool {
        (bands == 3 || bands == 4) && width > 0 && height > 0 && pixels.count == width * height * bands
    }

    /// What the image costs in memory: its decoded pixel bytes, the figure a
    /// memory cache must limit (encoded size understates it ten-fold or more).
    public var cost: Int { pixels.count }
}

/// What the header of an encoded image says, read without decoding pixels.
public struct ImageHeader: Sendable, Equatable {
    public let format: ImageFormat
    /// Stored width, before EXIF orientation is applied.
    public let width: Int
    /// Stored height of the first frame or page, before EXIF orientation.
    public let height: Int
    /// Encoded size in bytes.
    public let byteCount: Int

    public init(format: ImageFormat, width: Int, height: Int, byteCount: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.byteCount = byteCount
    }

    public var pixelCount: Int { width * height }
}
