/// The parts of a URL as RFC 3986 splits them, found without Foundation: image
/// URLs from real APIs carry pasted spaces, nested URLs and double encoding,
/// which `URLComponents` either rejects or rewrites, and key derivation runs on
/// every request, where a fast split matters.
struct URLParts {
    var scheme: Substring?
    var userInfo: Substring?
    var host: Substring?
    var port: Substring?
    var path: Substring
    var query: Substring?
    var fragment: Substring?

    /// Splits `text` after trimming surrounding whitespace. Never fails: a
    /// string without a scheme is all path.
    init(_ text: String) {
        var rest = text.trimmingWhitespace()
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: question)...]
            rest = rest[..<question]
        }
        if let colon = rest.firstIndex(of: ":"), rest[..<colon].isValidScheme {
            scheme = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        if rest.hasPrefix("//") {
            rest = rest.dropFirst(2)
            let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            var authority = rest[..<authorityEnd]
            rest = rest[authorityEnd...]
            if let at = authority.lastIndex(of: "@") {
                userInfo = authority[..<at]
                authority = authority[authority.index(after: at)...]
            }
            if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
                port = authority[authority.index(after: colon)...]
                authority = authority[..<colon]
            }
            host = authority
        }
        path = rest
    }

    /// Path segments, percent-decoded, without empty ones (what Foundation's
    /// `URL.pathComponents` returns after its leading "/").
    var decodedSegments: [String] {
        path.split(separator: "/").map { percentDecoded($0) }
    }
}

extension StringProtocol {
    /// RFC 3986: a letter, then letters, digits, "+", "-" or ".".
    fileprivate var isValidScheme: Bool {
        guard let first = utf8.first, first.isASCIILetter else { return false }
        return utf8.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    func trimmingWhitespace() -> SubSequence {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
        return self[start..<end]
    }
}

extension UInt8 {
    var isASCIILetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    var isASCIIDigit: Bool { (0x30...0x39).contains(self) }
}

/// Decodes %XX escapes; an invalid escape stays as it is.
func percentDecoded(_ text: Substring) -> String {
    guard text.contains("%") else { return String(text) }
    let input = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(input.count)
    var index = 0
    while index < input.count {
        if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
           let value = hexValue(input[index + 1], input[index + 2]) {
            output.append(value)
            index += 3
        } else {
            output.append(input[index])
            index += 1
        }
    }
    return String(decoding: output, as: UTF8.self)
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
