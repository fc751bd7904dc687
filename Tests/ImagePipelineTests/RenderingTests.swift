import CVips
import Foundation
import Testing
@testable import ImagePipeline

/// The thumbnailer computes pixels on the calling thread (`icb_render_here`) and decodes an image
/// that already fits its box sequentially from the handle its header came from; libvips' own
/// path is its thread-pool sink (`vips_image_write_to_memory`) over a random-access load. Both
/// must give the same bytes.
@Suite("Thumbnails rendered on the calling thread")
struct RenderingTests {
    static let cases: [(EncodedFormat, Int, Int, Bool)] = [
        (.jpeg(quality: 85), 85, 125, false),  // a Vanilladin cover: fits its box
        (.jpeg(quality: 85), 1200, 630, false),  // shrunk on load
        (.jpeg(quality: 85), 3000, 2000, false),  // shrunk on load, many strips
        (.png(compression: 6), 300, 200, true),
        (.png(compression: 6), 1600, 1200, true),
        (.webp(quality: 80), 640, 480, false),
        (.gif, 200, 150, false),
    ]

    @Test("equal to libvips' own sink, shrunk on load and plain", arguments: cases)
    func sameAsSink(_ image: (EncodedFormat, Int, Int, Bool)) throws {
        try LibVips.start()
        let (format, width, height, alpha) = image
        let data = try synth(width, height, format, alpha: alpha)
        let box = ThumbnailRequest(width: 120, height: 80, scale: 3)
        try withBytes(data) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let loader = Self.loader(of: bytes)
            let shrunk = try render(here: true) { icb_thumbnail_buffer(bytes.baseAddress, bytes.count, box.pixelWidth, box.pixelHeight, VIPS_SIZE_DOWN, 0, VIPS_FAIL_ON_TRUNCATED, $0) }
            let shrunkBySink = try render(here: false) { icb_thumbnail_buffer(bytes.baseAddress, bytes.count, box.pixelWidth, box.pixelHeight, VIPS_SIZE_DOWN, 0, VIPS_FAIL_ON_TRUNCATED, $0) }
            #expect(shrunk == shrunkBySink)
            let plain = try render(here: true) { icb_load_sequential(loader, bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            let plainBySink = try render(here: false) { icb_load_full(loader, bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, $0) }
            #expect(plain == plainBySink)
            #expect(plain.count > 0 && shrunk.count > 0)
        }
        // And through the thumbnailer, whose output for these 8-bit sRGB sources is those bytes.
        let thumbnail = try Thumbnailer().thumbnail(data, fitting: box)
        let fits = width <= box.pixelWidth && height <= box.pixelHeight
        try withBytes(data) { (bytes: UnsafeRawBufferPointer) throws(VipsFailure) in
            let reference = try render(here: false) { out in
                fits ? icb_load_full(Self.loader(of: bytes), bytes.baseAddress, bytes.count, VIPS_FAIL_ON_TRUNCATED, out)
                    : icb_thumbnail_buffer(bytes.baseAddress, bytes.count, box.pixelWidth, box.pixelHeight, VIPS_SIZE_DOWN, 0, VIPS_FAIL_ON_TRUNCATED, out)
            }
            #expect(thumbnail.pixels == reference)
        }
    }

    @Test("a truncated body fails while rendering here, as libvips' sink fails")
    func truncatedFails() throws {
        try LibVips.start()
        let data = try synth(1200, 900)
        let cut = data.prefix(data.count / 2)
        #expect(throws: DecodingError.self) { try Thumbnailer().thumbnail(Data(cut), fitting: .square(100)) }
        #expect(throws: DecodingError.self) { try Thumbnailer().thumbnail(Data(cut), fitting: .square(2000)) }
    }

    /// The loader the thumbnailer names for these bytes.
    private static func loader(of bytes: UnsafeRawBufferPointer) -> String {
        guard case .image(let format) = ImageFormat.sniff(bytes) else { return "not an image" }
        return LibVips.loader(for: format)
    }

    @Test("names the loader libvips' own search finds for each format", arguments: [
        EncodedFormat.jpeg(quality: 85), .png(compression: 6), .webp(quality: 80), .gif, .heic(quality: 50), .avif(quality: 50),
    ])
    func loaderAsFound(_ encoded: EncodedFormat) throws {
        try LibVips.start()
        let data: Data
        switch encoded {
        case .heic, .avif:  // libheif's encoders are optional in libvips builds
            guard let encoded = try? synth(64, 48, encoded) else { return }
            data = encoded
        default: data = try synth(64, 48, encoded)
        }
        withBytes(data) { (bytes: UnsafeRawBufferPointer) in
            guard case .image(let format) = ImageFormat.sniff(bytes), let found = vips_foreign_find_load_buffer(bytes.baseAddress, bytes.count) else {
                Issue.record("\(encoded): not recognised")
                return
            }
            #expect(vips_type_find("VipsOperation", LibVips.loader(for: format)) == vips_type_find("VipsOperation", found),
                    "\(format): the thumbnailer names \(LibVips.loader(for: format)), libvips finds \(String(cString: found))")
        }
    }

    /// The pixels of the image `load` makes, computed here or by libvips' sink.
    private func render(here: Bool, _ load: (VipsImageHandle.Output) -> Int32) throws(VipsFailure) -> Data {
        let image = try VipsImageHandle(load)
        var length = 0
        let memory = here ? icb_render_here(image.pointer, &length) : vips_image_write_to_memory(image.pointer, &length)
        guard let memory else { throw VipsFailure(message: LibVips.takeErrorMessage()) }
        defer { g_free(memory) }
        return Data(bytes: memory, count: length)
    }
}
