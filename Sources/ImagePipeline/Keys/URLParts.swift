#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where the parts of a URL lie in its UTF-8 bytes, as RFC 3986 splits them.
/// Found without Foundation and without building strings: image URLs from
/// real APIs carry pasted spaces, nested URLs and double encoding that
/// `URLComponents` rejects or rewrites, and keys are derived on every request.
struct URLParts {
    var scheme: Range<Int>?
    var userInfo: Range<Int>?
    var host: Range<Int>?
    var port: Range<Int>?
    var path: Range<Int>
    var query: Range<Int>?
    /// Everything between the surrounding whitespace.
    var trimmed: Range<Int>

    /// Splits `bytes`, ignoring surrounding whitespace. Never fails: a string
    /// without a scheme is all path.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var start = 0, end = bytes.count
        while start < end, bytes[start].isWhitespace { start += 1 }
        while end > start, bytes[end - 1].isWhitespace { end -= 1 }
        trimmed = start..<end
        if let hash = Self.first(UInt8(ascii: "#"), in: bytes, start..<end) { end = hash }
        if let question = Self.first(UInt8(ascii: "?"), in: bytes, start..<end) {
            query = (question + 1)..<end
            end = question
        }
        if let colon = Self.first(UInt8(ascii: ":"), in: bytes, start..<end), Self.isScheme(bytes, start..<colon) {
            scheme = start..<colon
            start = colon + 1
        }
        if end - start >= 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") {
            start += 2
            let authorityEnd = Self.first(UInt8(ascii: "/"), in: bytes, start..<end) ?? end
            var hostStart = start, hostEnd = authorityEnd
            if let at = Self.last(UInt8(ascii: "@"), in: bytes, start..<authorityEnd) {
                userInfo = start..<at
                hostStart = at + 1
            }
            // Trailing colons are empty ports, which mean none: "h:80:" has the port 80.
            var portEnd = authorityEnd
            while portEnd > hostStart, bytes[portEnd - 1] == UInt8(ascii: ":") { portEnd -= 1 }
            hostEnd = portEnd
            // A port is digits (RFC 3986) after a host without colons of its own (an IPv6
            // literal keeps its colons inside brackets). A host with stray colons is not a
            // host, and none of its text is read as a port, so a second pass cannot find a
            // port the first did not (both cases found by fuzzing).
            if let colon = Self.last(UInt8(ascii: ":"), in: bytes, hostStart..<portEnd),
               Self.last(UInt8(ascii: "]"), in: bytes, colon..<portEnd) == nil,
               ((colon + 1)..<portEnd).allSatisfy({ bytes[$0] >= UInt8(ascii: "0") && bytes[$0] <= UInt8(ascii: "9") }) {
                // An unclosed "[" is no literal: its colons are stray ("[::3" has no port, or
                // decoding "%33" in "[::%33" would make one on the next pass; found by fuzzing).
                let literalEnd = bytes[hostStart] == UInt8(ascii: "[")
                    ? Self.first(UInt8(ascii: "]"), in: bytes, hostStart..<colon).map { $0 + 1 } ?? hostStart : hostStart
                if Self.first(UInt8(ascii: ":"), in: bytes, literalEnd..<colon) == nil {
                    port = (colon + 1)..<portEnd
                    hostEnd = colon
                }
            }
            host = hostStart..<hostEnd
            start = authorityEnd
        }
        path = start..<end
    }

    /// Calls `body` with each non-empty path segment, in order.
    func forEachSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Void) {
        var cursor = path.lowerBound
        while cursor < path.upperBound {
            while cursor < path.upperBound, bytes[cursor] == UInt8(ascii: "/") { cursor += 1 }
            let segmentStart = cursor
            while cursor < path.upperBound, bytes[cursor] != UInt8(ascii: "/") { cursor += 1 }
            if cursor > segmentStart { body(segmentStart..<cursor) }
        }
    }

    /// The last non-empty path segment.
    func lastSegment(_ bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var end = path.upperBound
        while end > path.lowerBound, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        guard end > path.lowerBound else { return nil }
        let start = Self.last(UInt8(ascii: "/"), in: bytes, path.lowerBound..<end).map { $0 + 1 } ?? path.lowerBound
        return start..<end
    }

    func pathIsAbsolute(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !path.isEmpty && bytes[path.lowerBound] == UInt8(ascii: "/")
    }

    // These run several times on every request's key (`range.first(where:)` and
    // `reversed()` cost a fifth of a memory hit): `memchr` reads many bytes a step, and
    // the backward searches, which cover an authority of a few bytes, are plain loops.
    @inline(__always)
    static func first(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, let base = bytes.baseAddress,
              let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    @inline(__always)
    static func last(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var index = range.upperBound
        while index > range.lowerBound {
            index -= 1
            if bytes[index] == byte { return index }
        }
        return nil
    }

    /// RFC 3986: a letter, then letters, digits, "+", "-" or ".".
    static func isScheme(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        guard let first = range.first, bytes[first].isASCIILetter else { return false }
        return range.allSatisfy {
            bytes[$0].isASCIILetter || bytes[$0].isASCIIDigit || bytes[$0] == 0x2B || bytes[$0] == 0x2D || bytes[$0] == 0x2E
        }
    }
}

extension UInt8 {
    var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
    var isWhitespace: Bool { self == 0x20 || (0x09...0x0D).contains(self) }
    var lowercasedASCII: UInt8 { (0x41...0x5A).contains(self) ? self | 0x20 : self }
}

func hexValue(_ high: UInt8, _ low: UInt8) -> UInt8? {
    func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    guard let h = nibble(high), let l = nibble(low) else { return nil }
    return h << 4 | l
}

/// Runs `body` on the UTF-8 bytes of `text` without copying a native string.
func withUTF8Bytes<T>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    var text = text
    return text.withUTF8(body)
}
