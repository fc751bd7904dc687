import Foundation
import Testing
@testable import ImagePipeline

@Suite("Thumbnailer: each bad input gets its own typed error")
struct DecodingErrorTests {
    let thumbnailer = Thumbnailer()
    let box = ThumbnailRequest.square(100)

    func error(_ data: Data, _ thumbnailer: Thumbnailer? = nil) -> DecodingError? {
        do {
            _ = try (thumbnailer ?? self.thumbnailer).thumbnail(data, fitting: box)
            return nil
        } catch {
            return error
        }
    }

    @Test func zeroBytes() {
        #expect(error(Data()) == .empty)
    }

    @Test func htmlErrorPage() {
        let page = Data("\n  <!DOCTYPE html><html><head><title>404 Not Found</title></head></html>".utf8)
        #expect(error(page) == .notAnImage(.html))
    }

    @Test func jsonBody() {
        #expect(error(Data(#"{"status":"error","code":"rateLimited"}"#.utf8)) == .notAnImage(.json))
    }

    @Test func plainText() {
        #expect(error(Data("Service Unavailable".utf8)) == .notAnImage(.text))
    }

    @Test("unknown binary and formats outside the web set are unsupported")
    func unsupported() {
        var generator = SplitMix64(seed: 7)
        let noise = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
        guard case .unsupportedFormat = error(noise) else { Issue.record("random bytes: \(String(describing: error(noise)))"); return }
        let tiff = Data([0x49, 0x49, 0x2A, 0x00] + Array(repeating: 0, count: 64))
        guard case .unsupportedFormat = error(tiff) else { Issue.record("TIFF: \(String(describing: error(tiff)))"); return }
    }

    @Test("truncated downloads are reported as truncated", arguments: [
        EncodedFormat.jpeg(quality: 85), .png(compression: 6), .webp(quality: 80), .gif,
    ])
    func truncated(_ format: EncodedFormat) throws {
        let data = try synth(400, 300, format)
        for fraction in [0.02, 0.3, 0.6, 0.95] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            let failure = error(cut)
            guard case .truncated(let reported, _) = failure else {
                Issue.record("\(format) cut to \(fraction): \(String(describing: failure))")
                continue
            }
            #expect(reported == format.imageFormat)
        }
    }

    @Test("a PNG cut inside its last rows is truncated every time, and one with bytes after IEND decodes")
    func pngCutNearTheEnd() throws {
        let data = try synth(320, 240, .png(compression: 6))
        // libvips alone let 1 run in 3 of a 99% cut through as a thumbnail (its read races its threads).
        for _ in 0..<20 {
            guard case .truncated(.png, _) = error(data.prefix(data.count * 99 / 100)) else {
                Issue.record("a PNG cut at 99% decoded or failed otherwise")
                return
            }
        }
        #expect(error(data + Data(repeating: 0x41, count: 4_096)) == nil)
    }

    @Test("a damaged JPEG is corrupt, not truncated")
    func corrupt() {
        var generator = SplitMix64(seed: 3)
        let garbage = (0..<2000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let data = Data([0xFF, 0xD8, 0xFF, 0xE0] + garbage + [0xFF, 0xD9])
        guard case .corrupt(.jpeg, let detail) = error(data) else {
            Issue.record("got \(String(describing: error(data)))")
            return
        }
        // libvips' own words, naming its JPEG loader or libjpeg.
        #expect(detail.lowercased().contains("jpeg"), "\(detail)")
    }

    @Test("a PNG header claiming 50000×50000 pixels is refused before decoding")
    func pixelBomb() {
        #expect(error(pngHeader(claimingWidth: 50_000, height: 50_000))
            == .tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000))
    }

    @Test("limits are configurable")
    func limits() throws {
        let data = try synth(1200, 630)
        let strict = Thumbnailer(limits: DecodingLimits(maxPixels: 500_000))
        #expect(error(data, strict) == .tooManyPixels(width: 1200, height: 630, limit: 500_000))
        let small = Thumbnailer(limits: DecodingLimits(maxBytes: 1000))
        #expect(error(data, small) == .tooManyBytes(count: data.count, limit: 1000))
    }

    @Test("one failure's libvips message never leaks into the next")
    func errorBufferCleared() throws {
        let truncatedJPEG = try synth(400, 300).prefix(500)
        let first = error(truncatedJPEG)
        let second = error(truncatedJPEG)
        #expect(first == second)
    }
}
