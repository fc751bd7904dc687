import Foundation
import Testing
@testable import ImagePipeline

@Suite("Synthesis and re-encoding")
struct SynthesisAndEncodingTests {
    @Test("the same seed gives the same bytes", arguments: [
        EncodedFormat.jpeg(quality: 85), .png(compression: 6), .webp(quality: 80),
    ])
    func deterministic(_ format: EncodedFormat) throws {
        let first = try synth(640, 360, format, seed: 11)
        #expect(first == (try synth(640, 360, format, seed: 11)))
        #expect(first != (try synth(640, 360, format, seed: 12)))
    }

    @Test("images carry photo-like entropy, not flat colour")
    func entropy() throws {
        // A flat or smooth 1200×630 image compresses to a few KiB as JPEG and to
        // a tiny fraction of its raw size as PNG; photographs do not.
        let jpeg = try synth(1200, 630, .jpeg(quality: 85))
        #expect(jpeg.count > 60_000)
        let png = try synth(1200, 630, .png(compression: 6))
        #expect(Double(png.count) / Double(1200 * 630 * 3) > 0.4)
    }

    @Test("a zero-sized spec is an error, not a crash")
    func zeroSize() {
        #expect(throws: DecodingError.self) { try synth(0, 10) }
    }

    @Test("thumbnails re-encode and decode back", arguments: [
        EncodedFormat.jpeg(quality: 40), .png(compression: 6), .webp(quality: 75),
    ])
    func reencode(_ format: EncodedFormat) throws {
        let thumbnailer = Thumbnailer()
        let thumbnail = try thumbnailer.thumbnail(try synth(900, 600), fitting: .square(300))
        let encoded = try thumbnail.encoded(as: format)
        let back = try thumbnailer.thumbnail(encoded, fitting: .square(300))
        #expect(back.source.format == format.imageFormat)
        #expect((back.width, back.height) == (thumbnail.width, thumbnail.height))
        if case .png = format { #expect(back.pixels == thumbnail.pixels) }  // lossless
    }

    @Test("JPEG has no alpha: an RGBA thumbnail is flattened to RGB")
    func jpegFlattensAlpha() throws {
        let thumbnailer = Thumbnailer()
        let rgba = try thumbnailer.thumbnail(try synth(300, 200, .png(compression: 6), alpha: true), fitting: .square(300))
        #expect(rgba.bands == 4)
        let back = try thumbnailer.thumbnail(try rgba.encoded(as: .jpeg(quality: 80)), fitting: .square(300))
        #expect(back.bands == 3)
    }
}
