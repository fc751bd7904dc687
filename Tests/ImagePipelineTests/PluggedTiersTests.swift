import Foundation
import ImagePipeline
import ImageSynthesis
import PipelineTesting
import Testing

/// Tiers of a user's own behind `ImageCaching`, `DataCaching` and `ImageDecoding`: the
/// pipeline asks them as it asks its own.
@Suite("Pipeline with tiers of your own")
struct PluggedTiersTests {
    static let jpeg = try! ImageSynthesizer.image(SynthesisSpec(seed: 5, width: 320, height: 240, format: .jpeg(quality: 80)))

    func request(_ url: String, _ side: Int = 100) -> ImageRequest { ImageRequest(url: url, box: .square(side)) }

    @Test("a memory tier of your own answers hits, hears warnings, and loses what is invalidated")
    func memoryTier() async throws {
        let tier = DictionaryImageCache(limit: 10)
        let fetcher = ScriptedFetcher(fallback: .data(Self.jpeg))
        let pipeline = try ImagePipeline(.init(imageCache: tier), fetcher: fetcher)
        let url = "https://img.example/a.jpg"
        #expect(try await pipeline.image(for: request(url)).source == .origin)
        #expect(try await pipeline.image(for: request(url)).source == .memory)
        #expect(try await pipeline.image(for: request(url, 200)).source == .origin)
        #expect(tier.count == 2 && tier.hits == 1)
        #expect(pipeline.memoryCache.count == 2)

        pipeline.respond(to: .purgeAll)
        #expect(tier.count == 0)
        #expect(try await pipeline.image(for: request(url)).source == .origin)
        #expect(try await pipeline.image(for: request(url, 200)).source == .origin)
        #expect(tier.count == 2)

        pipeline.invalidate(url: url)
        #expect(tier.count == 0, "both boxes of the URL are gone from your tier")
        #expect(fetcher.calls(to: url) == 4)
    }

    @Test("a disk tier of your own: once memory is gone the picture comes from it, with no download")
    func diskTier() async throws {
        let disk = DictionaryDataCache()
        let fetcher = ScriptedFetcher(fallback: .data(Self.jpeg))
        let pipeline = try ImagePipeline(.init(dataCache: disk, diskPolicy: .originals), fetcher: fetcher)
        let url = "https://img.example/b.jpg"
        #expect(try await pipeline.image(for: request(url)).source == .origin)
        await pipeline.waitForDiskWrites()
        #expect(disk.count == 1 && disk.totalBytes == Self.jpeg.count, "the original, as downloaded")
        pipeline.respond(to: .purgeAll)
        #expect(try await pipeline.image(for: request(url)).source == .disk)
        #expect(fetcher.calls(to: url) == 1)
        pipeline.invalidate(url: url)
        #expect(disk.count == 0)
    }

    @Test("a decoder of your own makes every thumbnail, one per box")
    func decoder() async throws {
        let decoder = PlainDecoder()
        let pipeline = try ImagePipeline(.init(thumbnailer: decoder), fetcher: ScriptedFetcher(fallback: .data(Data("any bytes".utf8))))
        for side in [100, 100, 200] {
            let response = try await pipeline.image(for: request("https://img.example/c", side))
            #expect(response.image.width == 1 && response.image.source.byteCount == 9)
        }
        #expect(decoder.decodes == 2)
    }

    @Test("a decoder whose image is not what it says is refused as corrupt, never stored")
    func malformedDecoder() async throws {
        struct Short: ImageDecoding {
            func thumbnail(_ data: Data, fitting request: ThumbnailRequest) throws -> DecodedImage {
                DecodedImage(width: 2, height: 2, bands: 3, pixels: Data([1, 2, 3]), source: ImageHeader(format: .png, width: 2, height: 2, byteCount: data.count))
            }
        }
        let pipeline = try ImagePipeline(.init(thumbnailer: Short()), fetcher: ScriptedFetcher(fallback: .data(Data([1]))))
        await #expect(throws: DecodingError.corrupt(.png, detail: "the decoder made 2×2×3 pixels in 3 bytes")) {
            try await pipeline.image(for: request("https://img.example/d"))
        }
        #expect(pipeline.memoryCache.count == 0)
    }

    @Test("the pipeline forgets the keys of thumbnails your tier let go of, and still invalidates those it holds")
    func forgetsWhatTheTierLetGo() async throws {
        let tier = DictionaryImageCache(limit: 8)
        let pipeline = try ImagePipeline(
            .init(imageCache: tier, thumbnailer: PlainDecoder()), fetcher: ScriptedFetcher(fallback: .data(Data([1]))))
        let urls = (0..<4_200).map { "https://img.example/\($0)" }
        for url in urls { _ = try await pipeline.image(for: request(url)) }
        // 4,096 keys remembered: the ledger asked about each once and kept the 8 held.
        #expect(tier.containsAsked == 4_096)
        #expect(tier.count == 8)
        let held = try #require(urls.last)
        pipeline.invalidate(url: held)
        #expect(tier.count == 7)
        #expect(try await pipeline.image(for: request(held)).source == .origin)
    }
}
