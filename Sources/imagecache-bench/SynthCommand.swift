import ArgumentParser
import ImagePipeline
import ImageSynthesis
import Workloads

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Write a deterministic photo-like image (same seed, same bytes)."
    )

    @Option(help: "Seed of the picture: any whole number from 0 to 2^64−1.") var seed: UInt64 = 1
    @Option(parsing: .unconditional) var width = 1200
    @Option(parsing: .unconditional) var height = 630
    @Option var format: ImageFormat = .jpeg
    @Option(parsing: .unconditional, help: "Quality 1–100 for lossy formats.")
    var quality = 85
    @Option(parsing: .unconditional, help: "EXIF orientation 1–8 (JPEG).")
    var orientation = 1
    @Flag(help: "Add an alpha band.")
    var alpha = false
    @Option(name: .shortAndLong, help: "Output file.")
    var output: String

    func validate() throws {
        try OptionCheck.count(width, "--width", atLeast: 1, atMost: 20_000)
        try OptionCheck.count(height, "--height", atLeast: 1, atMost: 20_000)
        try OptionCheck.count(quality, "--quality", atLeast: 1, atMost: 100)
        try OptionCheck.count(orientation, "--orientation", atLeast: 1, atMost: 8)
    }

    func run() throws {
        let spec = SynthesisSpec(
            seed: seed, width: width, height: height, format: EncodedFormat(format, quality: quality), orientation: orientation, hasAlpha: alpha)
        let data = try ImageSynthesizer.image(spec)
        try OutputFile.write(data, to: output)
        print("wrote \(data.count) bytes to \(output)")
    }
}

extension ImageFormat: ExpressibleByArgument {}
