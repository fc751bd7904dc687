import CZlib
import Foundation
import ImagePipeline
import ImageSynthesis

/// Hostile and unusual images made by code: every one must come out of the
/// pipeline as a correct thumbnail or a typed error, never a crash.
public struct HostileCase: Sendable {
    public enum Expectation: String, Sendable, Codable {
        /// A valid image: the thumbnail must fit the box.
        case thumbnail
        /// Not an image, or one the limits refuse: a typed error.
        case error
    }

    public let name: String
    public let data: Data
    public let expectation: Expectation
}

public enum HostileCorpus {
    /// Where truncated files are cut, as a share of their length.
    static let cutPoints: [Double] = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]

    public static func make() throws -> [HostileCase] {
        var cases: [HostileCase] = [
            .init(name: "zero bytes", data: Data(), expectation: .error),
            .init(name: "random bytes", data: randomBytes(4_096, seed: 7), expectation: .error),
            .init(name: "HTML error page", data: Data("<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>".utf8), expectation: .error),
            .init(name: "JSON body", data: Data("{\"errors\":[\"OAuth error: The access token is invalid\"]}".utf8), expectation: .error),
            .init(name: "PNG header claiming 100000×100000", data: Data(HostileImages.pngHeader(claimingWidth: 100_000, height: 100_000)), expectation: .error),
            .init(name: "PNG bomb: 8000×8000 of zeros in a small file", data: zeroPNG(width: 8_000, height: 8_000), expectation: .thumbnail),
        ]
        func synth(_ spec: SynthesisSpec) throws -> Data { try ImageSynthesizer.image(spec) }
        let jpeg = try synth(.init(seed: 11, width: 640, height: 480, format: .jpeg(quality: 85)))
        let png = try synth(.init(seed: 12, width: 320, height: 240, format: .png(compression: 6)))
        let webp = try synth(.init(seed: 13, width: 640, height: 480, format: .webp(quality: 80)))
        for (format, data) in [("JPEG", jpeg), ("PNG", png), ("WebP", webp)] {
            for cut in cutPoints {
                let length = max(1, Int(Double(data.count) * cut))
                cases.append(.init(name: "\(format) cut at \(Int(cut * 100))%", data: data.prefix(length), expectation: .error))
            }
        }
        cases.append(.init(name: "JPEG header claiming 60000×60000", data: claimingJPEG(jpeg, side: 60_000), expectation: .error))
        let valid: [(String, SynthesisSpec)] = [
            ("CMYK JPEG", .init(seed: 14, width: 400, height: 300, format: .jpeg(quality: 85), variant: .cmyk)),
            ("16-bit PNG", .init(seed: 15, width: 300, height: 200, format: .png(compression: 6), variant: .sixteenBit)),
            ("PNG with alpha", .init(seed: 16, width: 300, height: 200, format: .png(compression: 6), hasAlpha: true)),
            ("progressive JPEG", .init(seed: 17, width: 800, height: 600, format: .jpeg(quality: 85), variant: .progressive)),
            ("animated GIF, 4 frames", .init(seed: 18, width: 160, height: 120, format: .gif, variant: .animated(frames: 4))),
            ("EXIF-rotated JPEG (orientation 6)", .init(seed: 19, width: 600, height: 400, format: .jpeg(quality: 85), orientation: 6)),
            ("1×1 PNG", .init(seed: 20, width: 1, height: 1, format: .png(compression: 6))),
            ("20000×10 strip JPEG", .init(seed: 21, width: 20_000, height: 10, format: .jpeg(quality: 85))),
        ]
        for (name, spec) in valid { cases.append(.init(name: name, data: try synth(spec), expectation: .thumbnail)) }
        cases += try damagedContainers(jpeg: jpeg, png: png)
        return cases
    }

    /// What servers and proxies do to image bodies: bytes after the end, two
    /// images in one body, an empty frame, a body still compressed, a header
    /// that claims more than the frames hold (libvips sizes a GIF by its frames,
    /// so that one must come out a thumbnail, not a 4-gigapixel canvas).
    static func damagedContainers(jpeg: Data, png: Data) throws -> [HostileCase] {
        let gif = try ImageSynthesizer.image(.init(seed: 22, width: 160, height: 120, format: .gif))
        var claimingGIF = [UInt8](gif)
        for offset in 6..<10 { claimingGIF[offset] = 0xFF }  // logical screen 65535×65535, frames still 160×120
        return [
            .init(name: "JPEG with bytes after its end marker", data: jpeg + randomBytes(2_048, seed: 23), expectation: .thumbnail),
            .init(name: "PNG with bytes after IEND", data: png + Data("trailing proxy banner".utf8), expectation: .thumbnail),
            .init(name: "two JPEGs in one body", data: jpeg + jpeg, expectation: .thumbnail),
            .init(name: "JPEG of only start and end markers", data: Data([0xFF, 0xD8, 0xFF, 0xD9]), expectation: .error),
            .init(name: "JPEG still deflate-compressed (a content encoding left on)", data: deflated(jpeg), expectation: .error),
            .init(name: "1×20000 strip PNG", data: try ImageSynthesizer.image(.init(seed: 24, width: 1, height: 20_000, format: .png(compression: 6))),
                  expectation: .thumbnail),
            .init(name: "GIF screen claiming 65535×65535 over 160×120 frames", data: Data(claimingGIF), expectation: .thumbnail),
        ]
    }

    /// The bytes as a zlib stream.
    static func deflated(_ data: Data) -> Data {
        var length = compressBound(uLong(data.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = data.withUnsafeBytes { input in
            compress2(&output, &length, input.bindMemory(to: Bytef.self).baseAddress, uLong(data.count), 9)
        }
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        return Data(output.prefix(Int(length)))
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> Data {
        var state = seed
        return Data((0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
    }

    /// A real JPEG whose frame header (SOF0/SOF2) is rewritten to claim `side`×`side`.
    static func claimingJPEG(_ jpeg: Data, side: UInt16) -> Data {
        var bytes = [UInt8](jpeg)
        var index = 2
        while index + 9 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1], length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if marker == 0xC0 || marker == 0xC2 {
                for offset in [index + 5, index + 7] {  // height, then width
                    bytes[offset] = UInt8(side >> 8)
                    bytes[offset + 1] = UInt8(side & 0xFF)
                }
                break
            }
            index += 2 + length
        }
        return Data(bytes)
    }

    /// An 8-bit greyscale PNG of zeros: a few hundred kilobytes that decode to `width`×`height` bytes.
    static func zeroPNG(width: Int, height: Int) -> Data {
        var stream = z_stream()
        deflateInit_(&stream, 9, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var compressed: [UInt8] = []
        var row = [UInt8](repeating: 0, count: width + 1)  // filter byte 0, then the pixels
        var output = [UInt8](repeating: 0, count: 1 << 16)
        func pump(_ flush: Int32) {
            repeat {
                output.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    deflate(&stream, flush)
                    compressed += buffer.prefix(buffer.count - Int(stream.avail_out))
                }
            } while stream.avail_out == 0
        }
        for _ in 0..<height {
            row.withUnsafeMutableBufferPointer { buffer in
                stream.next_in = buffer.baseAddress
                stream.avail_in = UInt32(buffer.count)
                pump(Z_NO_FLUSH)
            }
        }
        stream.next_in = nil
        stream.avail_in = 0
        pump(Z_FINISH)
        var header = HostileImages.pngHeader(claimingWidth: UInt32(width), height: UInt32(height))
        header[24 + 1] = 0  // colour type: greyscale (IHDR data starts at byte 16; colour type is its 10th byte)
        return Data(HostileImages.png(ihdr: Array(header[16..<29]), idat: compressed))
    }
}
