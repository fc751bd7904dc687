import Foundation

/// Makes the display-sized image from downloaded or stored bytes (Nuke's `ImageDecoding`
/// and resizing in one step). `Thumbnailer` (libvips) is the built-in one. The pipeline
/// calls it on its decode queue, at most `maxConcurrentDecodes` at once.
public protocol ImageDecoding: Sendable {
    func thumbnail(_ data: Data, fitting request: ThumbnailRequest) throws -> DecodedImage
}

extension Thumbnailer: ImageDecoding {}
