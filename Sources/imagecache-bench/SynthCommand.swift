import ArgumentParser
import Foundation
import ImagePipeline

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Write a deterministic photo-like image (same seed, same bytes)."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jpeg, png, webp, gif, heic, avif
    }

    @Option var seed: UInt64 = 1
    @Option var width = 1200
    @Option var height = 630
    @Option var format: Format = .jpeg
    @Option(help: "Quality 1–100 for lossy formats.")
    var quality = 85
    @Option(help: "EXIF orientation 1–8 (JPEG).")
    var orientation = 1
    @Flag(help: "Add an alpha band.")
    var alpha = false
    @Option(name: .shortAndLong, help: "Output file.")
    var output: String

    func run() throws {
        let encoded: EncodedFormat = switch format {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png(compression: 6)
        case .webp: .webp(quality: quality)
        case .gif: .gif
        case .heic: .heic(quality: quality)
        case .avif: .avif(quality: quality)
        }
        let spec = SynthesisSpec(
            seed: seed, width: width, height: height, format: encoded, orientation: orientation, hasAlpha: alpha)
        let data = try ImageSynthesizer.image(spec)
        try data.write(to: URL(fileURLWithPath: output))
        print("wrote \(data.count) bytes to \(output)")
    }
}
