import CVips
import Foundation
import Testing
@testable import ImagePipeline

@Suite("Thumbnailer: box fitting, orientation, formats")
struct ThumbnailerTests {
    let thumbnailer = Thumbnailer()

    @Test("fits the box and keeps the aspect ratio", arguments: [
        // (source w, h, box w, h, scale, expected w, h)
        (1200, 630, 120, 80, 3.0, 360, 189),  // landscape: width-bound
        (630, 1200, 120, 80, 3.0, 126, 240),  // portrait: height-bound
        (500, 500, 120, 80, 3.0, 240, 240),  // square into a wide box
        (1080, 1620, 180, 0, 3.0, 540, 810),  // height unconstrained
        (6000, 4000, 400, 400, 1.0, 400, 267),  // large photo
    ])
    func fitsBox(_ shape: (Int, Int, Int, Int, Double, Int, Int)) throws {
        let (width, height, boxWidth, boxHeight, scale, expectedWidth, expectedHeight) = shape
        let image = try thumbnailer.thumbnail(
            try synth(width, height), fitting: ThumbnailRequest(width: boxWidth, height: boxHeight, scale: scale))
        #expect(image.width == expectedWidth)
        #expect(image.height == expectedHeight)
        #expect(image.bands == 3)
        #expect(image.cost == expectedWidth * expectedHeight * 3)
        #expect(image.pixels.count == image.cost)
        #expect(image.source == ImageHeader(format: .jpeg, width: width, height: height, byteCount: image.source.byteCount))
    }

    @Test("libvips runs without liborc's run-time vector code unless configured to")
    func vectorPathsOff() throws {
        try LibVips.start()
        #expect(!LibVips.settings.vectorised)
        #expect(icb_vectorised() == 0)  // liborc 0.4.33 crashes under concurrent use
    }

    @Test("never upscales a tiny image unless asked")
    func tinyImage() throws {
        let data = try synth(50, 40)
        let kept = try thumbnailer.thumbnail(data, fitting: ThumbnailRequest(width: 120, height: 80, scale: 3))
        #expect((kept.width, kept.height) == (50, 40))
        let enlarged = try thumbnailer.thumbnail(
            data, fitting: ThumbnailRequest(width: 120, height: 80, scale: 3, allowsUpscaling: true))
        #expect((enlarged.width, enlarged.height) == (300, 240))
    }

    @Test("applies EXIF orientation: tag 6 turns the stored image 90° clockwise", arguments: Thumbnailer.Strategy.allCases)
    func orientation(_ strategy: Thumbnailer.Strategy) throws {
        let thumbnailer = Thumbnailer(strategy: strategy)
        let box = ThumbnailRequest.square(1000)
        let stored = try thumbnailer.thumbnail(try synth(200, 100, .png(compression: 1)), fitting: box)
        let upright = try thumbnailer.thumbnail(try synth(200, 100, .png(compression: 1)), fitting: box)
        #expect(stored.pixels == upright.pixels)  // same seed, same pixels

        let rotated = try thumbnailer.thumbnail(try synth(200, 100, .jpeg(quality: 100), orientation: 6), fitting: box)
        let plain = try thumbnailer.thumbnail(try synth(200, 100, .jpeg(quality: 100), orientation: 1), fitting: box)
        #expect((plain.width, plain.height) == (200, 100))
        #expect((rotated.width, rotated.height) == (100, 200))
        // Clockwise: the rotated image's row i, column j is the original's row (h-1-j), column i.
        for (i, j) in [(0, 0), (0, 99), (199, 0), (199, 99), (57, 31)] {
            #expect(pixel(rotated, j, i) == pixel(plain, i, 99 - j), "row \(i) column \(j)")
        }
    }

    @Test("decodes each format to 8-bit sRGB", arguments: [
        (EncodedFormat.jpeg(quality: 80), ImageFormat.jpeg, false, 3),
        (.png(compression: 6), .png, false, 3),
        (.png(compression: 6), .png, true, 4),
        (.webp(quality: 80), .webp, false, 3),
        (.webp(quality: 80), .webp, true, 4),
        (.gif, .gif, false, 3),
    ])
    func formats(_ format: (EncodedFormat, ImageFormat, Bool, Int)) throws {
        let (encoding, sniffed, alpha, bands) = format
        let image = try thumbnailer.thumbnail(try synth(640, 480, encoding, alpha: alpha), fitting: .square(160))
        #expect(image.source.format == sniffed)
        #expect((image.width, image.height) == (160, 120))
        #expect(image.bands == bands)
        #expect(image.cost == 160 * 120 * bands)
    }

    @Test(
        "decodes HEIC and AVIF where this libvips has a HEIF loader",
        .enabled(if: LibVips.canLoad(.heic)),
        arguments: [(EncodedFormat.heic(quality: 60), ImageFormat.heic), (.avif(quality: 60), .avif)])
    func heif(_ format: (EncodedFormat, ImageFormat)) throws {
        let (encoding, sniffed) = format
        let image = try thumbnailer.thumbnail(try synth(640, 480, encoding), fitting: .square(160))
        #expect(image.source.format == sniffed)
        #expect((image.width, image.height) == (160, 120))
        #expect(image.bands == 3)
    }

    @Test("shrink-on-load and full decode agree on size and colour")
    func strategiesAgree() throws {
        let data = try synth(1600, 1200)
        let request = ThumbnailRequest.square(200)
        let fast = try Thumbnailer(strategy: .shrinkOnLoad).thumbnail(data, fitting: request)
        let full = try Thumbnailer(strategy: .fullDecode).thumbnail(data, fitting: request)
        #expect((fast.width, fast.height) == (full.width, full.height))
        func meanLevel(_ image: DecodedImage) -> Double {
            Double(image.pixels.reduce(0) { $0 + Int($1) }) / Double(image.pixels.count)
        }
        #expect(abs(meanLevel(fast) - meanLevel(full)) < 2)
    }

    @Test("reads the header without decoding")
    func header() throws {
        let header = try thumbnailer.header(of: try synth(1200, 630, .webp(quality: 70)))
        #expect(header.format == .webp)
        #expect((header.width, header.height) == (1200, 630))
    }
}
