import Foundation
import ImagePipeline
import ImageSynthesis
@testable import OriginServer
import Testing

@Suite("Pictures padded to their recorded size")
struct RecordedSizeTests {
    @Test("a JPEG or PNG padded to the recording's bytes is exactly that long and decodes to the same pixels, with either decoder", arguments: [
        (ImageFormat.jpeg, 1_000), (.jpeg, 4), (.jpeg, 65_537), (.jpeg, 65_538), (.jpeg, 65_540), (.jpeg, 200_003), (.png, 12), (.png, 150_000),
    ])
    func padded(_ format: ImageFormat, _ extra: Int) throws {
        let made = try ImageSynthesizer.image(SynthesisSpec(seed: 11, width: 320, height: 200, format: EncodedFormat(format, quality: 82)))
        let padded = RecordedSize.padded(made, to: made.count + extra, format: format)
        #expect(padded.count == made.count + extra)
        let box = ThumbnailRequest(width: 160, height: 100)
        for strategy in [Thumbnailer.Strategy.shrinkOnLoad, .fullDecode] {
            let thumbnailer = Thumbnailer(strategy: strategy)
            #expect(try thumbnailer.thumbnail(padded, fitting: box).pixels == thumbnailer.thumbnail(made, fitting: box).pixels)
        }
        #expect(try Thumbnailer().header(of: padded).width == 320)
    }

    @Test("too little to pad, a picture already as large, or another format: served as made")
    func unchanged() throws {
        let jpeg = try ImageSynthesizer.image(SynthesisSpec(seed: 3, width: 64, height: 64, format: EncodedFormat(.jpeg, quality: 82)))
        #expect(RecordedSize.padded(jpeg, to: jpeg.count + 3, format: .jpeg) == jpeg)
        #expect(RecordedSize.padded(jpeg, to: jpeg.count - 100, format: .jpeg) == jpeg)
        let png = try ImageSynthesizer.image(SynthesisSpec(seed: 3, width: 64, height: 64, format: EncodedFormat(.png, quality: 82)))
        #expect(RecordedSize.padded(png, to: png.count + 11, format: .png) == png)
        #expect(RecordedSize.padded(jpeg, to: jpeg.count + 500, format: .webp) == jpeg)
    }
}
