import Foundation
import ImagePipeline
import ImageSynthesis

/// Whether thumbnailing in a loop returns every byte and libvips object it takes.
public struct LeakCheckReport: Sendable, Codable {
    public let iterations: Int
    public let failuresSeen: Int
    public let residentBytesBefore: Int
    public let residentBytesAfter: Int
    public let peakResidentBytes: Int
    public let liveVipsObjectsBefore: Int
    public let liveVipsObjectsAfter: Int
    /// Resident set size sampled evenly through the loop, in bytes.
    public let residentSamples: [Int]

    public var residentGrowthBytes: Int { residentBytesAfter - residentBytesBefore }

    /// Memory and libvips objects back to their warmed-up level, memory within `allowedGrowthBytes`.
    public func returned(allowedGrowthBytes: Int) -> Bool {
        liveVipsObjectsAfter <= liveVipsObjectsBefore && residentGrowthBytes <= allowedGrowthBytes
    }

    /// The line `leak-check` prints.
    public var summary: String {
        String(
            format: "%d thumbnails (%d expected failures): RSS %@ → %@ (%+.2f MiB), peak %@, live libvips objects %d → %d",
            iterations, failuresSeen, ByteSize.format(residentBytesBefore), ByteSize.format(residentBytesAfter),
            Double(residentGrowthBytes) / Double(1 << 20), ByteSize.format(peakResidentBytes), liveVipsObjectsBefore, liveVipsObjectsAfter)
    }
}

/// Thumbnails a rotating set of small images, and broken ones, many times over,
/// then compares resident memory and live libvips objects with a warmed-up start.
public struct LeakCheck: Sendable {
    public var iterations: Int
    public var warmupIterations: Int

    public init(iterations: Int = 10_000, warmupIterations: Int = 300) {
        self.iterations = iterations
        self.warmupIterations = warmupIterations
    }

    public func run(progress: ProgressLine = ProgressLine()) throws(DecodingError) -> LeakCheckReport {
        let inputs = try Self.inputs()
        let thumbnailer = Thumbnailer()
        let request = ThumbnailRequest.square(64)
        var failures = 0
        func step(_ index: Int) {
            do { _ = try thumbnailer.thumbnail(inputs[index % inputs.count], fitting: request) } catch { failures += 1 }
        }
        for index in 0..<warmupIterations { step(index) }
        failures = 0
        let residentBefore = ProcessMetrics.residentBytes
        let objectsBefore = LibVips.liveObjectCount
        var samples: [Int] = []
        let sampleEvery = max(1, iterations / 20)
        for index in 0..<iterations {
            step(index)
            if index % sampleEvery == 0 {
                samples.append(ProcessMetrics.residentBytes)
                progress.update("leak check \(index)/\(iterations)")
            }
        }
        progress.finish()
        return LeakCheckReport(
            iterations: iterations, failuresSeen: failures,
            residentBytesBefore: residentBefore, residentBytesAfter: ProcessMetrics.residentBytes,
            peakResidentBytes: ProcessMetrics.peakResidentBytes,
            liveVipsObjectsBefore: objectsBefore, liveVipsObjectsAfter: LibVips.liveObjectCount,
            residentSamples: samples)
    }

    /// Every format plus inputs that fail at each stage, so error paths are checked too.
    static func inputs() throws(DecodingError) -> [Data] {
        let formats: [EncodedFormat] = [.jpeg(quality: 80), .png(compression: 6), .webp(quality: 75), .gif]
        var inputs: [Data] = []
        for (index, format) in formats.enumerated() {
            inputs.append(try ImageSynthesizer.image(
                SynthesisSpec(seed: UInt64(index), width: 320, height: 200, format: format)))
        }
        let jpeg = inputs[0]
        inputs.append(jpeg.prefix(jpeg.count / 2))  // truncated
        inputs.append(Data("<html><body>502 Bad Gateway</body></html>".utf8))  // not an image
        return inputs
    }
}
