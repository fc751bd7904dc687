import Foundation

/// The values a scanned field holds, read from its span: typed, or refused naming the field.
extension JSONScanner {
    /// A whole number: written as an integer, or as a decimal or exponent form that is
    /// whole and exactly representable (as `JSONDecoder` also accepts).
    func integer(in span: Range<Int>, at path: String) throws(JSONLineError) -> Int {
        try wholeNumber(in: span, at: path, limit: UInt64(Int.max), negativeLimit: UInt64(Int.max) + 1) { negative, magnitude in
            negative ? Int(truncatingIfNeeded: 0 &- magnitude) : Int(magnitude)
        }
    }

    func unsigned(in span: Range<Int>, at path: String) throws(JSONLineError) -> UInt64 {
        try wholeNumber(in: span, at: path, limit: .max, negativeLimit: 0) { _, magnitude in magnitude }
    }

    func double(in span: Range<Int>, at path: String) throws(JSONLineError) -> Double {
        try requireNumber(span, at: path)
        if let small = DecimalDigits.value(bytes, span), small <= 1 << 53 { return Double(small) }
        guard let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[span]), as: UTF8.self)), value.isFinite else {
            throw JSONLineError(reason: "wrong type for \"\(path)\": the number is too large")
        }
        return value
    }

    func bool(in span: Range<Int>, at path: String) throws(JSONLineError) -> Bool {
        switch bytes[span.lowerBound] {
        case UInt8(ascii: "t"): true
        case UInt8(ascii: "f"): false
        default: throw wrongType(at: path, expected: "true or false", span)
        }
    }

    func string(in span: Range<Int>, at path: String) throws(JSONLineError) -> String {
        guard bytes[span.lowerBound] == UInt8(ascii: "\"") else { throw wrongType(at: path, expected: "a string", span) }
        let inner = span.lowerBound + 1..<span.upperBound - 1
        if memchr(bytes.baseAddress! + inner.lowerBound, Int32(UInt8(ascii: "\\")), inner.count) == nil {
            return try Self.text(UnsafeBufferPointer(rebasing: bytes[inner]), at: path)
        }
        return try Self.unescape(bytes, inner, at: path)
    }

    /// Whether a string value's bytes are exactly `literal` (no String is built).
    func string(in span: Range<Int>, equals literal: StaticString) -> Bool {
        let count = span.count - 2
        guard count == literal.utf8CodeUnitCount, bytes[span.lowerBound] == UInt8(ascii: "\"") else { return false }
        return memcmp(bytes.baseAddress! + span.lowerBound + 1, literal.utf8Start, count) == 0
    }

    func isNull(_ span: Range<Int>) -> Bool { bytes[span.lowerBound] == UInt8(ascii: "n") }

    static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, _ inner: Range<Int>, at path: String) throws(JSONLineError) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(inner.count)
        var index = inner.lowerBound
        func hex4(at start: Int) -> UInt32 {
            (start..<start + 4).reduce(0) { $0 << 4 | hexValue(bytes[$1])! }
        }
        while index < inner.upperBound {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var code = hex4(at: index)
                index += 4
                if (0xD800..<0xDC00).contains(code) {
                    guard index + 6 <= inner.upperBound, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                          case let low = hex4(at: index + 2), (0xDC00..<0xE000).contains(low) else {
                        throw JSONLineError(reason: "not valid JSON: a lone UTF-16 surrogate in a string")
                    }
                    code = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                    index += 6
                } else if (0xDC00..<0xE000).contains(code) {
                    throw JSONLineError(reason: "not valid JSON: a lone UTF-16 surrogate in a string")
                }
                utf8.append(contentsOf: String(Character(Unicode.Scalar(code)!)).utf8)
            default: utf8.append(escape)  // \" \\ \/
            }
        }
        return try utf8.withUnsafeBufferPointer { bytes throws(JSONLineError) in try text(bytes, at: path) }
    }

    /// A string's bytes as text, refused when they are not UTF-8 (JSON's encoding): replacing
    /// them would make different URLs one key.
    static func text(_ bytes: UnsafeBufferPointer<UInt8>, at path: String) throws(JSONLineError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw JSONLineError(reason: "\(path) holds bytes that are not UTF-8 (JSON text is UTF-8; a URL's other bytes are written %-escaped)")
        }
        return text
    }
}
