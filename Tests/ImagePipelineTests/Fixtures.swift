import Foundation
@testable import ImagePipeline
import ImageSynthesis
import Testing

/// Waits for `condition`, up to 30 s: long enough for a saturated CI machine (5 s was
/// not, once, with a fuzzer on the other core), and a bound: a condition that never
/// comes true fails the test at the caller's line instead of hanging it.
func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    for _ in 0..<3_000 {
        if condition() { return }
        try? await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("waited 30 s for a condition that never came true", sourceLocation: sourceLocation)
}

/// Deterministic test images.
func synth(
    _ width: Int, _ height: Int, _ format: EncodedFormat = .jpeg(quality: 85),
    seed: UInt64 = 42, orientation: Int = 1, alpha: Bool = false
) throws -> Data {
    try ImageSynthesizer.image(SynthesisSpec(
        seed: seed, width: width, height: height, format: format, orientation: orientation, hasAlpha: alpha))
}

/// A PNG whose header claims `width`×`height` pixels (a decompression bomb's shape).
func pngHeader(claimingWidth width: UInt32, height: UInt32) -> Data {
    Data(HostileImages.pngHeader(claimingWidth: width, height: height))
}

/// The pixel at (x, y) of an image, one value per band.
func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
    let start = (y * image.width + x) * image.bands
    return Array(image.pixels[start..<(start + image.bands)])
}
