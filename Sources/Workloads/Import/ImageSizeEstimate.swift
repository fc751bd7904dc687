import Foundation

/// A picture's pixel size when a recording does not hold its bytes (most HAR exports
/// omit bodies): from size parameters in its URL, or else from its length at the
/// format's typical bytes per pixel. Estimates, marked as such in the trace; a picture
/// whose size cannot be estimated keeps 0×0 (unknown), which the commands that price
/// memory refuse until `--assume-pixels` says what to assume.
public enum ImageSizeEstimate {
    /// Width and height named in the URL: query parameters `w`/`width` and `h`/`height`
    /// (one of them alone gives a square), or a `400x300` token in the path (the last one
    /// outside a crop box). An importer takes it only where the length makes it plausible
    /// (`PictureEvidence.urlSize`).
    public static func fromURL(_ url: String) -> (width: Int, height: Int)? {
        guard let components = URLComponents(string: url) else { return nil }
        var width: Int?, height: Int?
        for item in components.queryItems ?? [] {
            guard let value = item.value.flatMap({ Int($0) }), (1...ImageRequestEvent.maximumPixels).contains(value) else { continue }
            switch item.name.lowercased() {
            case "w", "width": width = width ?? value
            case "h", "height": height = height ?? value
            default: break
            }
        }
        if width != nil || height != nil { return (width ?? height!, height ?? width!) }
        // The last size in the path is the one served (Thumbor's `/fit-in/680x384/`); a segment
        // holding a `:` is a crop box (`0x348:6641x4084`), the region cut from the source, never
        // the size of what is served.
        for segment in components.path.split(separator: "/").reversed() where !segment.contains(":") {
            guard let match = segment.firstMatch(of: /(\d{2,6})[xX](\d{2,6})/), let w = Int(match.1), let h = Int(match.2),
                  (1...ImageRequestEvent.maximumPixels).contains(w), (1...ImageRequestEvent.maximumPixels).contains(h) else { continue }
            return (w, h)
        }
        return nil
    }

    /// Typical encoded bytes per pixel of photos in each format: JPEG at quality 75–85
    /// spends about 2 bits a pixel, WebP about a third less, AVIF and HEIC half; PNG and
    /// GIF (lossless, mostly graphics in apps) far more.
    public static func bytesPerPixel(format: String) -> Double {
        switch format.lowercased() {
        case "jpeg", "jpg": 0.25
        case "webp": 0.17
        case "avif", "heic", "heif": 0.12
        case "png": 1.0
        case "gif": 0.5
        default: 0.3
        }
    }

    /// A square of `bytes` at the format's typical bytes per pixel; nil without a length.
    public static func fromLength(_ bytes: Int, format: String) -> (width: Int, height: Int)? {
        guard bytes > 0 else { return nil }
        let side = Int((Double(bytes) / bytesPerPixel(format: format)).squareRoot().rounded())
        let clamped = min(max(side, 1), ImageRequestEvent.maximumPixels)
        return (clamped, clamped)
    }
}
