/// Encoded image formats the pipeline recognises by their leading bytes.
public enum ImageFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, png, webp, gif, heic, avif
}

/// What the first bytes of a body say it is, before any decoder sees it.
enum SniffedContent: Equatable {
    case image(ImageFormat)
    case nonImage(NonImageContent)
    case unknown
}

extension ImageFormat {
    /// Classifies a body by its signature; cheap, and never decodes.
    static func sniff(_ bytes: UnsafeRawBufferPointer) -> SniffedContent {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + signature.count else { return false }
            return signature.indices.allSatisfy { bytes[offset + $0] == signature[$0] }
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .image(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image(.png) }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .image(.gif) }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .image(.webp) }
        if starts(Array("ftyp".utf8), at: 4), bytes.count >= 12 {
            let brand = String(decoding: bytes[8..<12], as: UTF8.self)
            if brand == "avif" || brand == "avis" { return .image(.avif) }
            if ["heic", "heix", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .image(.heic) }
        }
        return sniffText(bytes)
    }

    /// Recognises text bodies: servers answer image URLs with error pages and JSON.
    private static func sniffText(_ bytes: UnsafeRawBufferPointer) -> SniffedContent {
        var index = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        guard index < bytes.count else { return .unknown }
        switch bytes[index] {
        case UInt8(ascii: "<"): return .nonImage(.html)
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .nonImage(.json)
        default: break
        }
        let sample = bytes[index..<min(bytes.count, index + 512)]
        let printable = sample.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return printable ? .nonImage(.text) : .unknown
    }

    /// Whether the body stops before the format's end marker, which is how a
    /// cut-off download looks; nil where the format has no end marker to check.
    /// Used to tell truncation from other damage once libvips has refused the bytes.
    func isStructurallyTruncated(_ bytes: UnsafeRawBufferPointer) -> Bool? {
        switch self {
        case .jpeg:
            // Entropy-coded data stuffs every 0xFF, so FF DA (start of scan) and
            // FF D9 (end of image) are real markers. An EXIF thumbnail carries its
            // own FF D9 earlier on; the main image's must follow its last scan.
            let lastScan = lastMarker(0xDA, in: bytes) ?? 0
            guard let end = lastMarker(0xD9, in: bytes) else { return true }
            return end < lastScan
        case .png:
            return !Self.pngReachesIEND(bytes)
        case .gif:
            return bytes.last != 0x3B  // trailer byte
        case .webp:
            // RIFF header: payload length at bytes 4..<8, little-endian.
            guard bytes.count >= 12 else { return true }
            let declared = (0..<4).reduce(0) { $0 | Int(bytes[4 + $1]) << (8 * $1) }
            return declared + 8 > bytes.count
        case .heic, .avif:
            return nil
        }
    }

    /// Whether walking a PNG's chunks (length, type, data, CRC) from the signature
    /// reaches a whole IEND chunk inside the bytes. Anything after IEND is ignored,
    /// as decoders do.
    static func pngReachesIEND(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = (0..<4).reduce(0) { $0 << 8 | Int(bytes[offset + $1]) }
            if bytes[(offset + 4)..<(offset + 8)].elementsEqual("IEND".utf8) { return true }
            let (next, overflow) = (offset + 12).addingReportingOverflow(length)
            guard !overflow else { return false }
            offset = next
        }
        return false
    }

    private func lastMarker(_ code: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == 0xFF && bytes[index + 1] == code { return index }
            index -= 1
        }
        return nil
    }
}

/// Words libvips' loaders use when input ends early.
func messageSuggestsTruncation(_ message: String) -> Bool {
    let lowered = message.lowercased()
    return ["premature end", "truncated", "unexpected end", "not enough data", "end of file", "out of data"]
        .contains { lowered.contains($0) }
}
