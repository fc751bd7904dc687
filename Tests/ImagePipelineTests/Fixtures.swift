import Foundation
@testable import ImagePipeline
import ImageSynthesis
import PipelineTesting
import Testing

/// Waits for `condition` (`eventually`), failing the test at the caller's line when it never
/// comes true.
func waitUntil(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
    if await !eventually(condition) {
        Issue.record("looked 3,000 times for a condition that never came true", sourceLocation: sourceLocation)
    }
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
