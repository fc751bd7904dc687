import Foundation
import ImagePipeline
import Bench
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
                let predicted = ThumbnailCost(sourceWidth: width, sourceHeight: height, hasAlpha: c.1, fitting: box)
                #expect(
                    (predicted.width, predicted.height, predicted.bands) == (image.width, image.height, image.bands),
                    "\(c.0) \(width)×\(height) alpha \(c.1) in \(box)")
                #expect(predicted.bytes == image.cost)
            }
        }
    }

    @Test("predicts the decoded size of HEIC and AVIF where this libvips encodes them", .enabled(if: LibVips.canLoad(.heic)))
    func heif() throws {
        for format in [EncodedFormat.heic(quality: 60), .avif(quality: 60)] {
            let data = try synth(640, 480, format)
            let box = ThumbnailRequest(width: 183, height: 137, scale: 3)
            let image = try thumbnailer.thumbnail(data, fitting: box)
            #expect(ThumbnailCost(sourceWidth: 640, sourceHeight: 480, hasAlpha: false, fitting: box).bytes == image.cost)
        }
    }

    @Test("every image shape and box of every committed dataset costs what the simulator charges")
    func datasets() throws {
        struct Shape: Hashable { let width: Int32, height: Int32, format: ImageFormat, alpha: Bool, box: ThumbnailRequest }
        var checked = Set<Shape>()
        var sources: [String: Data] = [:]
        let files = try FileManager.default.contentsOfDirectory(atPath: CraftedTrace.datasets.path).filter { $0.hasSuffix(".jsonl.gz") }
        #expect(files.count >= 6)
        for file in files.sorted() {
            let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent(file).path)
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
