import Foundation
import ImagePipeline

/// A recorded picture's size from the best evidence its entry holds, in this order:
/// 1. the picture's own header, where its body is present: JPEG, PNG, GIF, WebP, AVIF/HEIF
///    (libvips reads them), SVG (`width`/`height`, else `viewBox`), ICO/CUR (the largest image
///    of its directory);
/// 2. its length (`lengths`, in the order the caller trusts them), for the bytes, and for the
///    pixels a size named in the URL when that size is plausible for the length at the format's
///    bytes per pixel (never a crop box), else a square at the format's typical bytes per pixel;
/// 3. nothing: 0×0, unknown.
enum PictureEvidence {
    /// What a body says it is.
    enum Body {
        /// A picture whose header gave its size.
        case picture(width: Int, height: Int, format: String)
        /// Bytes that are not a picture (an HTML error page, JSON, text).
        case notAPicture(String)
        /// A picture's signature whose header cannot be read (cut, redacted): size it from its lengths.
        case unreadable
    }

    static func read(_ body: Data, format: String) -> Body {
        if format == "svg" || body.prefix(256).contains(where: { $0 == UInt8(ascii: "<") }) && isSVG(body) {
            guard let (width, height) = svgSize(body) else { return .unreadable }
            return .picture(width: width, height: height, format: "svg")
        }
        if let (width, height) = icoSize(body) { return .picture(width: width, height: height, format: "ico") }
        if let header = try? Thumbnailer().header(of: body) {
            return .picture(width: header.width, height: header.height, format: header.format.rawValue)
        }
        let head = body.prefix(64)
        let text = String(decoding: head, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head") { return .notAPicture("an HTML page") }
        if text.hasPrefix("{") || text.hasPrefix("[") { return .notAPicture("JSON") }
        return .unreadable
    }

    // MARK: SVG

    static func isSVG(_ body: Data) -> Bool { svgTagStart(Array(body.prefix(4096))) != nil }

    /// Where `<svg` begins, in any case (compared byte by byte: Foundation's case-insensitive
    /// search loads ICU, a second on first use).
    private static func svgTagStart(_ bytes: [UInt8]) -> Int? {
        let tag = Array("<svg".utf8)
        guard bytes.count >= tag.count else { return nil }
        return (0...(bytes.count - tag.count)).first { start in
            (0..<tag.count).allSatisfy { bytes[start + $0] | (tag[$0] == UInt8(ascii: "<") ? 0 : 0x20) == tag[$0] }
        }
    }

    /// `width` and `height` of the root element in user units (px, or no unit), else the
    /// `viewBox`'s; a size in %, em or other relative units is not a size of its own.
    static func svgSize(_ body: Data) -> (Int, Int)? {
        let bytes = Array(body.prefix(16_384))
        guard let open = svgTagStart(bytes), let close = bytes[(open + 4)...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let tag = Array(bytes[(open + 4)..<close])
        // An attribute's value: ` name = "value"` (or single quotes), the name standing alone.
        func attribute(_ name: String) -> String? {
            let wanted = Array(name.utf8)
            var index = 0
            while index + wanted.count <= tag.count {
                defer { index += 1 }
                guard index == 0 || tag[index - 1] == 0x20 || (0x09...0x0D).contains(tag[index - 1]),
                      Array(tag[index..<index + wanted.count]) == wanted else { continue }
                var at = index + wanted.count
                while at < tag.count, tag[at] == 0x20 { at += 1 }
                guard at < tag.count, tag[at] == UInt8(ascii: "=") else { continue }
                at += 1
                while at < tag.count, tag[at] == 0x20 { at += 1 }
                guard at < tag.count, tag[at] == UInt8(ascii: "\"") || tag[at] == UInt8(ascii: "'") else { continue }
                let quote = tag[at]
                guard let end = tag[(at + 1)...].firstIndex(of: quote) else { return nil }
                return String(decoding: tag[(at + 1)..<end], as: UTF8.self)
            }
            return nil
        }
        func length(_ value: String?) -> Int? {
            guard var value = value.map({ String($0.filter { $0 != " " }).lowercased() }) else { return nil }
            if value.hasSuffix("px") { value.removeLast(2) }
            guard let number = Double(value), number.isFinite, number > 0 else { return nil }
            return plausibleSide(Int(number.rounded(.up)))
        }
        if let width = length(attribute("width")), let height = length(attribute("height")) { return (width, height) }
        let box = (attribute("viewBox") ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
        guard box.count == 4, let width = plausibleSide(Int(box[2].rounded(.up))), let height = plausibleSide(Int(box[3].rounded(.up))) else {
            return nil
        }
        return (width, height)
    }

    // MARK: ICO and CUR

    /// The largest image of an icon or cursor directory (a width or height byte of 0 is 256).
    static func icoSize(_ body: Data) -> (Int, Int)? {
        let bytes = [UInt8](body.prefix(6 + 16 * 256))
        guard bytes.count >= 6, bytes[0] == 0, bytes[1] == 0, bytes[2] == 1 || bytes[2] == 2, bytes[3] == 0 else { return nil }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8
        guard count > 0, bytes.count >= 6 + 16 * count else { return nil }
        let sizes = (0..<count).map { index -> (Int, Int) in
            let entry = 6 + 16 * index
            return (bytes[entry] == 0 ? 256 : Int(bytes[entry]), bytes[entry + 1] == 0 ? 256 : Int(bytes[entry + 1]))
        }
        return sizes.max { $0.0 * $0.1 < $1.0 * $1.1 }
    }

    // MARK: sizes from the URL

    /// The range of encoded bytes per pixel a picture of `format` can plausibly have: from a
    /// sixteenth of the typical (a large, smooth photo compressed hard) to eight times it (a
    /// small or noisy one, or a lossless format's worst case).
    static func plausibleBytesPerPixel(format: String) -> ClosedRange<Double> {
        let typical = ImageSizeEstimate.bytesPerPixel(format: format)
        return (typical / 16)...(typical * 8)
    }

    /// A size the URL names, when `bytes` could encode that many pixels in `format`.
    static func urlSize(_ url: String, bytes: Int, format: String) -> (width: Int, height: Int)? {
        guard bytes > 0, let named = ImageSizeEstimate.fromURL(url) else { return nil }
        let perPixel = Double(bytes) / (Double(named.width) * Double(named.height))
        return plausibleBytesPerPixel(format: format).contains(perPixel) ? named : nil
    }

    private static func plausibleSide(_ side: Int) -> Int? {
        (1...ImageRequestEvent.maximumPixels).contains(side) ? side : nil
    }
}
