import Foundation
@testable import ImagePipeline

/// Any bytes through libjpeg's direct decode (C, on untrusted bytes): it decodes or declines,
/// never crashes or reads out of bounds; what it decodes has the size libvips reads from the
/// same header, within the box and the pixel limit.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let box = ThumbnailRequest.square(256)
    let limits = DecodingLimits(maxPixels: 1 << 16)
    guard let image = withBytes(data, { DirectJPEG.decode($0, fitting: box, limits: limits) }) else { return 0 }
    precondition(image.bands == 3 && image.pixels.count == image.width * image.height * 3, "pixels of the wrong size")
    precondition(image.width <= 256 && image.height <= 256 && image.width * image.height <= 1 << 16, "outside the box or limit")
    let header = try? Thumbnailer().header(of: data)
    precondition(header.map { ($0.width, $0.height) == (image.width, image.height) } ?? false,
                 "libvips reads \(String(describing: header)) from a JPEG decoded as \(image.width)×\(image.height)")
    return 0
}
