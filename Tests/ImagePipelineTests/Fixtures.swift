import Foundation
@testable import ImagePipeline

/// Deterministic test images.
func synth(
    _ width: Int, _ height: Int, _ format: EncodedFormat = .jpeg(quality: 85),
    seed: UInt64 = 42, orientation: Int = 1, alpha: Bool = false
) throws -> Data {
    try ImageSynthesizer.image(SynthesisSpec(
        seed: seed, width: width, height: height, format: format, orientation: orientation, hasAlpha: alpha))
}

/// A PNG made of a valid signature, an IHDR chunk claiming `width`×`height`,
/// one tiny IDAT and IEND: what a decompression bomb's header looks like.
func pngHeader(claimingWidth width: UInt32, height: UInt32) -> Data {
    func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + payload
        return bigEndian(UInt32(payload.count)) + body + bigEndian(crc32(body))
    }
    let ihdr = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]  // 8-bit RGB
    let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01]  // zlib of one zero byte
    let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    return Data(signature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", []))
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// CRC-32 (ISO-HDLC), as PNG chunks carry it.
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}

/// The pixel at (x, y) of an image, one value per band.
func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> [UInt8] {
    let start = (y * image.width + x) * image.bands
    return Array(image.pixels[start..<(start + image.bands)])
}
