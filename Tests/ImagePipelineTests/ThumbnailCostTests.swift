import Foundation
import ImagePipeline
import Testing
import ImageSynthesis
import CacheSimulation

/// The simulator's memory costs come from `ThumbnailCost`; the live cache's from
/// the thumbnail libvips really makes. They must be the same number.
@Suite("Thumbnail cost model")
struct ThumbnailCostTests {
    let thumbnailer = Thumbnailer()

    func synth(_ width: Int, _ height: Int, _ format: EncodedFormat, alpha: Bool = false) throws -> Data {
        try ImageSynthesizer.image(SynthesisSpec(seed: UInt64(width * 31 + height), width: width, height: height, format: format, hasAlpha: alpha))
    }

    @Test(
        "predicts the decoded size of every format, with and without alpha, in odd boxes",
        arguments: [
            (EncodedFormat.jpeg(quality: 80), false), (.png(compression: 6), false), (.png(compression: 6), true),
            (.webp(quality: 80), false), (.webp(quality: 80), true), (.gif, false),
        ])
    func formats(_ c: (EncodedFormat, Bool)) throws {
        let boxes = [
            ThumbnailRequest(width: 120, height: 80, scale: 3), ThumbnailRequest(width: 183, height: 137, scale: 3),
            ThumbnailRequest(width: 101, height: 0, scale: 2), ThumbnailRequest(width: 0, height: 77, scale: 1.5),
            ThumbnailRequest.square(2000), ThumbnailRequest(width: 333, height: 333, scale: 1, allowsUpscaling: true),
        ]
        for (width, height) in [(1001, 667), (640, 479), (97, 1203), (300, 300)] {
            let data = try synth(width, height, c.0, alpha: c.1)
            for box in boxes {
                let image = try thumbnailer.thumbnail(data, fitting: box)
                let predicted = ThumbnailCost(sourceWidth: width, sourceHeight: height, format: c.0.imageFormat, hasAlpha: c.1, fitting: box)
                #expect(
                    (predicted.width, predicted.height, predicted.bands) == (image.width, image.height, image.bands),
                    "\(c.0) \(width)×\(height) alpha \(c.1) in \(box)")
                #expect(predicted.bytes == image.cost)
            }
        }
    }

    @Test(
        "a side landing on a half pixel: libvips' shrink on load and per-axis rounding decide it, and the model follows",
        arguments: [EncodedFormat.jpeg(quality: 80), .webp(quality: 80), .png(compression: 6)])
    func halfPixelSides(_ format: EncodedFormat) throws {
        // 2:3 and 3:2 sources in boxes whose other side comes out at x.5 pixels, shrunk by 1.5 to 10
        // (JPEG: no shrink on load, by 2 and by 4), among them Picterest's 3456×5184 in a 183×275 pt cell at 3×.
        var shapes = [(3456, 5184, ThumbnailRequest(width: 183, height: 275, scale: 3))]
        for (width, height) in [(1000, 1500), (1500, 1000), (2000, 3000)] {
            for side in [99, 133, 333, 549] {
                shapes.append((width, height, ThumbnailRequest(width: side, height: 0)))
                shapes.append((width, height, ThumbnailRequest(width: 0, height: side)))
            }
        }
        // Every side is odd: where it constrains the shorter side, the longer is side × 1.5, a half pixel.
        for (width, height, box) in shapes {
            let data = try synth(width, height, format)
            let image = try thumbnailer.thumbnail(data, fitting: box)
            let predicted = ThumbnailCost(sourceWidth: width, sourceHeight: height, format: format.imageFormat, hasAlpha: false, fitting: box)
            #expect((predicted.width, predicted.height) == (image.width, image.height), "\(format) \(width)×\(height) in \(box)")
        }
    }

    @Test("predicts the decoded size of HEIC and AVIF where this libvips encodes them", .enabled(if: LibVips.canLoad(.heic)))
    func heif() throws {
        for format in [EncodedFormat.heic(quality: 60), .avif(quality: 60)] {
            let data = try synth(640, 480, format)
            let box = ThumbnailRequest(width: 183, height: 137, scale: 3)
            let image = try thumbnailer.thumbnail(data, fitting: box)
            #expect(ThumbnailCost(sourceWidth: 640, sourceHeight: 480, format: format.imageFormat, hasAlpha: false, fitting: box).bytes == image.cost)
        }
    }

    @Test("the decode work: the pixels the loader makes after shrinking on load, the pixels resized, and those between the resize's passes")
    func decodeWork() {
        let news = ThumbnailRequest(width: 1003, height: 0)
        // A news picture a little too wide: loaded whole (no shrink on load below 2×), all of it resized.
        #expect(news.decodeWork(width: 1024, height: 576, format: .jpeg) == DecodeWork(loadedPixels: 589_824, resizedPixels: 589_824, betweenPassesPixels: 1_024 * 564, throughLibvips: true))
        // A photo 10× its box: a JPEG is shrunk by 4 on load, a PNG is loaded whole.
        let box = ThumbnailRequest.square(400)
        #expect(box.decodeWork(width: 4000, height: 3000, format: .jpeg) == DecodeWork(loadedPixels: 750_000, resizedPixels: 750_000, betweenPassesPixels: 1_000 * 300, throughLibvips: true))
        #expect(box.decodeWork(width: 4000, height: 3000, format: .png) == DecodeWork(loadedPixels: 12_000_000, resizedPixels: 12_000_000, betweenPassesPixels: 4_000 * 300, throughLibvips: true))
        // libvips leaves the resize at least 2× (4× the box: shrunk by 2 on load); a JPEG that fits needs neither libvips nor a resize.
        #expect(box.decodeWork(width: 1600, height: 800, format: .jpeg) == DecodeWork(loadedPixels: 320_000, resizedPixels: 320_000, betweenPassesPixels: 800 * 200, throughLibvips: true))
        #expect(box.decodeWork(width: 300, height: 200, format: .jpeg) == DecodeWork(loadedPixels: 60_000, resizedPixels: 0, throughLibvips: false))
        #expect(box.decodeWork(width: 300, height: 200, format: .png) == DecodeWork(loadedPixels: 60_000, resizedPixels: 0, throughLibvips: true))
    }

    @Test("every image shape and box of every committed dataset costs what the simulator charges")
    func datasets() throws {
        struct Shape: Hashable { let width: Int32, height: Int32, format: ImageFormat, alpha: Bool, box: ThumbnailRequest }
        var checked = Set<Shape>()
        var sources: [String: Data] = [:]
        let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: datasets.path).filter { $0.hasSuffix(".jsonl.gz") }
        #expect(files.count >= 6)
        for file in files.sorted() {
            let workload = try RecordedWorkload.load(path: datasets.appendingPathComponent(file).path)
            for request in workload.requests {
                let format = try #require(request.format)
                let shape = Shape(
                    width: request.width, height: request.height, format: format, alpha: request.hasAlpha, box: workload.boxes[Int(request.box)])
                guard checked.insert(shape).inserted else { continue }
                let name = "\(shape.width)x\(shape.height).\(format.rawValue)"
                let data = try sources[name] ?? synth(Int(shape.width), Int(shape.height), EncodedFormat(format, quality: 82), alpha: shape.alpha)
                sources[name] = data
                let image = try thumbnailer.thumbnail(data, fitting: shape.box)
                #expect(workload.thumbnailCost(of: request).bytes == image.cost, "\(file): \(name) in \(shape.box)")
            }
        }
        #expect(checked.count >= 30)
    }
}
