import CVips
import ImagePipeline
import Foundation

/// What image to make: the same spec always gives the same bytes.
public struct SynthesisSpec: Hashable, Sendable {
    public var seed: UInt64
    public var width: Int
    public var height: Int
    public var format: EncodedFormat
    /// EXIF orientation tag (1–8) written into formats that carry one (JPEG).
    public var orientation: Int
    /// Adds an alpha band (for PNG, WebP, HEIC/AVIF).
    public var hasAlpha: Bool
    /// An encoding less common on the web, for hostile-input tests.
    public var variant: Variant

    public enum Variant: Hashable, Sendable {
        case plain
        /// Progressive (interlaced) JPEG.
        case progressive
        /// CMYK JPEG, as print workflows export.
        case cmyk
        /// 16 bits per band (PNG).
        case sixteenBit
        /// This many frames of `height` each, stacked (GIF).
        case animated(frames: Int)
    }

    public init(
        seed: UInt64, width: Int, height: Int, format: EncodedFormat,
        orientation: Int = 1, hasAlpha: Bool = false, variant: Variant = .plain
    ) {
        self.seed = seed
        self.width = width
        self.height = height
        self.format = format
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.variant = variant
    }
}

/// Makes deterministic, photo-like images with libvips for tests and the origin server.
///
/// Flat colour would compress to nothing and decode in no time; these images
/// layer coarse and fine Perlin noise, Worley cell edges and Gaussian grain, so
/// encoded sizes and decode costs resemble photographs of the same dimensions.
public enum ImageSynthesizer {
    /// Changes whenever the same spec would give other bytes, so stores of images made by
    /// another version are not served (recorded traces carry the bytes of this version).
    public static let version = 2

    public static func image(_ spec: SynthesisSpec) throws(DecodingError) -> Data {
        try LibVips.start()
        guard spec.width > 0, spec.height > 0 else {
            throw .encodingFailed("cannot synthesise a \(spec.width)×\(spec.height) image")
        }
        do throws(VipsFailure) {
            var seeds = SplitMix64(seed: spec.seed)
            var canvas = spec
            if case .animated(let frames) = spec.variant { canvas.height = spec.height * max(frames, 1) }
            var image = try pixels(canvas, seeds: &seeds)
            if spec.orientation != 1 {
                image = try image.map { icb_copy_with_orientation($0, $1, Int32(spec.orientation)) }
            }
            switch spec.variant {
            case .plain, .progressive: break
            case .cmyk: image = try image.map { icb_colourspace($0, $1, VIPS_INTERPRETATION_CMYK) }
            case .sixteenBit: image = try image.map { icb_colourspace($0, $1, VIPS_INTERPRETATION_RGB16) }
            case .animated:
                image = try image.map { icb_copy_with_int($0, $1, "page-height", Int32(clamping: spec.height)) }
            }
            let keepsMetadata = spec.orientation != 1 || spec.variant != .plain
            return try encode(image, as: spec.format, keepsMetadata: keepsMetadata, progressive: spec.variant == .progressive)
        } catch let failure {
            throw .encodingFailed(failure.message)
        }
    }

    private static func pixels(_ spec: SynthesisSpec, seeds: inout SplitMix64) throws(VipsFailure) -> VipsImageHandle {
        let (width, height) = (Int32(clamping: spec.width), Int32(clamping: spec.height))
        // The smooth fields (shapes, tints, cell edges; every cell is at least a sixteenth of the
        // longer side) are made at a quarter of the size and enlarged: generating
        // them per pixel cost four times as much, for detail the grain hides.
        let (fieldWidth, fieldHeight) = (max(1, (width + 3) / 4), max(1, (height + 3) / 4))
        let fieldSide = Int(max(fieldWidth, fieldHeight))
        func cell(_ divisor: Int) -> Int32 { Int32(clamping: max(2, fieldSide / divisor)) }
        func perlin(_ cellSize: Int32, _ amplitude: Double) throws(VipsFailure) -> VipsImageHandle {
            let seed = seeds.nextInt32()
            return try VipsImageHandle { icb_perlin($0, fieldWidth, fieldHeight, cellSize, seed) }
                .map { icb_linear($0, $1, amplitude, 0) }
        }
        func sum(_ a: borrowing VipsImageHandle, _ b: borrowing VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
            try a.map { icb_add($0, b.pointer, $1) }
        }
        func enlarged(_ field: borrowing VipsImageHandle) throws(VipsFailure) -> VipsImageHandle {
            try field.map { icb_enlarge($0, $1, width, height) }
        }

        // Shared luminance structure: large shapes, mid detail, and cell edges.
        let edgesSeed = seeds.nextInt32()
        let edgeCell = cell(10)
        let edges = try VipsImageHandle { icb_worley($0, fieldWidth, fieldHeight, edgeCell, edgesSeed) }
            .map { icb_linear($0, $1, 90 / Double(edgeCell), -45) }
        let structure = try sum(sum(perlin(cell(4), 90), perlin(cell(16), 35)), edges)

        // Each colour band: the structure, its own broad tint, and sensor-like grain. The three
        // bands are joined at field size and enlarged in one pass (enlarging each band alone cost
        // twice as much, for the same pixels: bilinear enlargement commutes with the sums).
        func grain() throws(VipsFailure) -> VipsImageHandle {
            let mean = 90 + Double(seeds.next() % 80)
            let grainSeed = seeds.nextInt32()
            // Grain as a repeated tile: Gaussian noise costs per pixel, and a 256-pixel period
            // is invisible at photo sizes and to a block-based encoder.
            return try VipsImageHandle { icb_gaussnoise($0, min(width, 256), min(height, 256), mean, 6, grainSeed) }
        }
        let redGrain = try grain(), red = try sum(structure, perlin(cell(3), 60))
        let greenGrain = try grain(), green = try sum(structure, perlin(cell(3), 60))
        let blueGrain = try grain(), blue = try sum(structure, perlin(cell(3), 60))
        let grains = try VipsImageHandle { icb_bandjoin3(redGrain.pointer, greenGrain.pointer, blueGrain.pointer, $0) }
            .map { icb_copy_memory($0, $1) }
            .map { icb_tile($0, $1, width, height) }
        let colour = try VipsImageHandle { icb_bandjoin3(red.pointer, green.pointer, blue.pointer, $0) }
        var image = try sum(enlarged(colour), grains)
        if spec.hasAlpha {
            let alpha = try enlarged(perlin(cell(2), 127).map { icb_linear($0, $1, 1, 128) })
            image = try image.map { icb_bandjoin2($0, alpha.pointer, $1) }
        }
        return try image
            .map { icb_cast($0, $1, VIPS_FORMAT_UCHAR) }
            .map { icb_copy_as_srgb($0, $1) }
    }
}
