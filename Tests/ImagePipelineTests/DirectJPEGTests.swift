import CVips
import Foundation
import ImageSynthesis
import Testing
@testable import ImagePipeline

/// A JPEG that fits its box is decoded by libjpeg without libvips' pipeline (`DirectJPEG`).
/// Its pixels must be libvips' own, and everything libvips' load would treat differently
/// (a turn, other colours, damage, a limit) must go to libvips.
@Suite("JPEGs that fit their box, decoded by libjpeg directly")
struct DirectJPEGTests {
    static let box = ThumbnailRequest(width: 240, height: 240, scale: 3)  // 720×720 pixels

    static let decodedCases: [(Int, Int, Int, Bool)] = [
        (85, 125, 85, false),  // a Vanilladin cover
        (125, 85, 85, false),
        (1, 1, 85, false),
        (7, 5, 85, false),  // smaller than one chroma block
        (200, 290, 50, false),
        (200, 290, 95, false),  // no chroma subsampling at 90 and above
        (333, 501, 85, true),  // progressive
        (720, 720, 85, false),  // exactly the box
    ]

    @Test("the same pixels as libvips' load", arguments: decodedCases)
    func sameAsLibVips(_ shape: (Int, Int, Int, Bool)) throws {
        let (width, height, quality, progressive) = shape
        let data = try jpeg(width, height, quality: quality, progressive: progressive)
        let direct = try #require(withBytes(data) { DirectJPEG.decode($0, fitting: Self.box, limits: DecodingLimits()) })
        #expect(direct.width == width && direct.height == height && direct.bands == 3)
        #expect(direct.source == ImageHeader(format: .jpeg, width: width, height: height, byteCount: data.count))
        #expect(direct.pixels == (try libvipsLoad(data)))
        // And the thumbnailer hands out that decode.
        let thumbnail = try Thumbnailer().thumbnail(data, fitting: Self.box)
        #expect(thumbnail.pixels == direct.pixels && thumbnail.source == direct.source)
    }

    @Test("declines what libvips' load would treat differently, and the thumbnailer still answers as before")
    func declines() throws {
        let plain = try synth(300, 200)
        let turned = try synth(300, 200, orientation: 6)
        let cmyk = try ImageSynthesizer.image(SynthesisSpec(seed: 3, width: 120, height: 90, format: .jpeg(quality: 85), variant: .cmyk))
        let grey = try greyJPEG(120, 90)
        let cut = Data(plain.prefix(plain.count / 2))
        func declined(_ data: Data, _ box: ThumbnailRequest = Self.box, _ limits: DecodingLimits = DecodingLimits()) -> Bool {
            withBytes(data) { DirectJPEG.decode($0, fitting: box, limits: limits) } == nil
        }
        #expect(!declined(plain))  // the control: these bytes are decoded when nothing else is in the way
        #expect(declined(turned))  // Exif orientation 6: the image turns
        #expect(declined(cmyk))
        #expect(declined(grey))
        #expect(declined(cut))  // libjpeg's warning: premature end of data
        #expect(declined(Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])))
        #expect(declined(plain, ThumbnailRequest(width: 300, height: 250)))  // fits only one way round
        #expect(declined(plain, ThumbnailRequest(width: 100, height: 100)))  // to be shrunk
        #expect(declined(plain, ThumbnailRequest(width: 1000, height: 1000, allowsUpscaling: true)))
        #expect(declined(plain, Self.box, DecodingLimits(maxPixels: 300 * 200 - 1)))
        let progressive = try jpeg(300, 200, quality: 85, progressive: true)  // libjpeg's script: 10 scans
        #expect(withBytes(progressive) { DirectJPEG.decode($0, fitting: Self.box, limits: DecodingLimits(), maxScans: 9) } == nil)
        #expect(withBytes(progressive) { DirectJPEG.decode($0, fitting: Self.box, limits: DecodingLimits(), maxScans: 10) } != nil)

        let thumbnailer = Thumbnailer()
        let upright = try thumbnailer.thumbnail(turned, fitting: Self.box)
        #expect((upright.width, upright.height) == (200, 300))
        #expect(try thumbnailer.thumbnail(cmyk, fitting: Self.box).bands == 3)
        #expect(try thumbnailer.thumbnail(grey, fitting: Self.box).pixels == (try libvipsThumbnail(grey)))
        #expect(throws: DecodingError.self) { try thumbnailer.thumbnail(cut, fitting: Self.box) }
        #expect(throws: DecodingError.tooManyPixels(width: 300, height: 200, limit: 300 * 200 - 1)) {
            try Thumbnailer(limits: DecodingLimits(maxPixels: 300 * 200 - 1)).thumbnail(plain, fitting: Self.box)
        }
    }

    @Test("the decode work the simulator charges names the same path: libjpeg alone exactly where DirectJPEG decodes a plain JPEG")
    func decodeWorkNamesThePath() throws {
        let boxes = [Self.box, ThumbnailRequest(width: 300, height: 250), ThumbnailRequest(width: 100, height: 100),
                     ThumbnailRequest(width: 1000, height: 1000, allowsUpscaling: true), ThumbnailRequest(width: 0, height: 200)]
        var direct = 0
        for (width, height) in [(85, 125), (300, 200), (720, 720), (721, 300), (200, 300)] {
            let data = try jpeg(width, height, quality: 85, progressive: false)
            for box in boxes {
                let decoded = withBytes(data) { DirectJPEG.decode($0, fitting: box, limits: DecodingLimits()) } != nil
                let work = box.decodeWork(width: width, height: height, format: .jpeg)
                #expect(work.throughLibvips == !decoded, "\(width)×\(height) in \(box)")
                if decoded { direct += 1; #expect(work.resizedPixels == 0 && work.loadedPixels == width * height) }
            }
        }
        // Four shapes fit the 720-pixel box either way round; the cover also fits 300×250 and a 200-pixel height.
        #expect(direct == 6)
    }

    /// What libvips' JPEG loader makes of `data`, rendered by its own sink.
    private func libvipsLoad(_ data: Data) throws -> Data {
        try withBytes(data) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let image = try VipsImageHandle { icb_load_full("jpegload_buffer", bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            return try pixels(of: image)
        }
    }

    /// A grey image's thumbnail the way the libvips path makes it: loaded, then turned to sRGB.
    private func libvipsThumbnail(_ data: Data) throws -> Data {
        try withBytes(data) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let image = try VipsImageHandle { icb_load_full("jpegload_buffer", bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            return try pixels(of: image.map { icb_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) })
        }
    }

    private func pixels(of image: borrowing VipsImageHandle) throws(VipsFailure) -> Data {
        var length = 0
        guard let memory = vips_image_write_to_memory(image.pointer, &length) else {
            throw VipsFailure(message: LibVips.takeErrorMessage())
        }
        defer { g_free(memory) }
        return Data(bytes: memory, count: length)
    }

    /// A synthesised picture saved as a JPEG without metadata (the synthesiser keeps an
    /// orientation segment in its progressive variant).
    private func jpeg(_ width: Int, _ height: Int, quality: Int, progressive: Bool) throws -> Data {
        let picture = try synth(width, height, .png(compression: 1), seed: UInt64(width * 1000 + height))
        return try withBytes(picture) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let image = try VipsImageHandle { icb_load_full("pngload_buffer", bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            return try encode(image, as: .jpeg(quality: quality), progressive: progressive)
        }
    }

    /// A one-band (greyscale) JPEG.
    private func greyJPEG(_ width: Int, _ height: Int) throws -> Data {
        let colour = try synth(width, height)
        return try withBytes(colour) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let image = try VipsImageHandle { icb_load_full("jpegload_buffer", bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            let grey = try image.map { icb_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
            return try encode(grey, as: .jpeg(quality: 85))
        }
    }
}
