import Foundation

/// Why one line of JSON could not be read, as a clause for `file:line: …`.
struct JSONLineError: Error {
    let reason: String
}

/// A strict JSON (RFC 8259) scanner over one line's bytes, for the trace reader's hot loop.
///
/// An object is read in one pass that validates it and notes where each wanted field's
/// value lies; values are then decoded from those spans on demand, so fields a line does
/// not need cost nothing and a String is built only for string values asked for.
/// Stricter than `JSONDecoder` where that one is lenient: no trailing commas, no
/// repeated fields.
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var index: Int
    /// Whether the string `stringSpan` last read held an escape.
    private var escaped = false

    init(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// Deep enough for any value a trace carries in a field it does not know; deeper
    /// nesting is refused rather than recursed into.
    static let maximumDepth = 64

    // MARK: Structure

    /// Reads the object starting here (after whitespace) and returns the span of each
    /// field named in `names`, in their order; a field that is absent has no span. The
    /// object held by the field `nested.field`, if any, is read in the same pass, and
    /// the spans of its fields in `nested.names` are returned too.
    mutating func object(fields names: FieldNames, at path: String, nested: (field: Int, names: FieldNames)? = nil)
        throws(JSONLineError) -> (FieldSpans, nested: FieldSpans) {
        var spans = FieldSpans(), nestedSpans = FieldSpans()
        // Writers put fields in one order (ours sorts them), so the next key is most
        // likely the name after the last one found: try it first.
        var predicted = 0
        skipWhitespace()
        try expect(UInt8(ascii: "{"))
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return (spans, nestedSpans)
        }
        while true {
            skipWhitespace()
            let key = try stringSpan()
            let field = try field(named: key, escaped: escaped, in: names, tryingFirst: predicted)
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            let start = index
            if let nested, field == nested.field, peek() == UInt8(ascii: "{") {
                nestedSpans = try object(fields: nested.names, at: Self.join(path, names.names[nested.field])).0
            } else {
                try skipValue(depth: 1)
            }
            if let field {
                predicted = field + 1 == names.count ? 0 : field + 1
                guard spans[field] == nil else {
                    throw JSONLineError(reason: "field \"\(Self.join(path, names.names[field]))\" appears twice")
                }
                spans[field] = start..<index
            }
            skipWhitespace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return (spans, nestedSpans)
            default: throw invalid("expected , or } after a field")
            }
        }
    }

    /// Only whitespace may follow the value just read.
    mutating func expectEnd() throws(JSONLineError) {
        skipWhitespace()
        guard index == bytes.count else { throw invalid("unexpected text after the object") }
    }

    // MARK: Scanning

    @inline(__always)
    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    @inline(__always)
    private mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    @inline(__always)
    private mutating func expect(_ byte: UInt8) throws(JSONLineError) {
        guard peek() == byte else { throw invalid("expected \(Character(Unicode.Scalar(byte)))") }
        index += 1
    }

    /// Moves past one value, checking its grammar.
    private mutating func skipValue(depth: Int) throws(JSONLineError) {
        guard depth <= Self.maximumDepth else { throw invalid("nested deeper than \(Self.maximumDepth) levels") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try stringSpan()
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "}") { index += 1; return }
            while true {
                skipWhitespace()
                _ = try stringSpan()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                switch next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return
                default: throw invalid("expected , or } in an object")
                }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") { index += 1; return }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                switch next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return
                default: throw invalid("expected , or ] in an array")
                }
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case let byte? where byte == UInt8(ascii: "-") || Self.isDigit(byte): try skipNumber()
        default: throw invalid("expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONLineError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count, memcmp(bytes.baseAddress! + index, word.utf8Start, count) == 0 else {
            throw invalid("expected a value")
        }
        index += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func skipNumber() throws(JSONLineError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw invalid("expected a digit") }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw invalid("expected a digit after the decimal point") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw invalid("expected a digit in the exponent") }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    /// The span of a string, quotes included; checks its escapes and that it holds no
    /// control characters.
    private mutating func stringSpan() throws(JSONLineError) -> Range<Int> {
        let start = index
        escaped = false
        try expect(UInt8(ascii: "\""))
        while index < bytes.count {
            skipPlainStringBytes()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return start..<index }
            if byte >= 0x20, byte != UInt8(ascii: "\\") { continue }
            guard byte == UInt8(ascii: "\\") else { throw invalid("a control character in a string") }
            escaped = true
            switch next() {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                continue
            case UInt8(ascii: "u"):
                for _ in 0..<4 {
                    guard let digit = next(), Self.hexValue(digit) != nil else { throw invalid("expected four hex digits after \\u") }
                }
            default: throw invalid("unknown escape in a string")
            }
        }
        throw invalid("a string without its closing quote")
    }

    /// Moves to the next byte that needs attention in a string (a quote, a backslash or a
    /// control character), eight bytes at a time: URLs are most of a trace's bytes.
    @inline(__always)
    private mutating func skipPlainStringBytes() {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // The high bit of each byte of `word` below `limit`. A borrow can also mark bytes
        // above such a byte, never below it, so the lowest mark is exact.
        func below(_ limit: UInt64, _ word: UInt64) -> UInt64 { (word &- ones &* limit) & ~word & highs }
        let base = UnsafeRawPointer(bytes.baseAddress!)
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let marks = below(1, word ^ (ones &* 0x22)) | below(1, word ^ (ones &* 0x5C)) | below(0x20, word)
            if marks != 0 {
                index += marks.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    private func invalid(_ what: String) -> JSONLineError {
        JSONLineError(reason: "not valid JSON: \(what) at column \(index + 1)")
    }

    func wrongType(at path: String, expected: String, _ span: Range<Int>) -> JSONLineError {
        let found = switch bytes[span.lowerBound] {
        case UInt8(ascii: "\""): "a string"
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "n"): "null"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
        default: "a number"
        }
        return JSONLineError(reason: "wrong type for \"\(path)\": expected \(expected), found \(found)")
    }

    func requireNumber(_ span: Range<Int>, at path: String, _ expected: String = "a number") throws(JSONLineError) {
        let first = bytes[span.lowerBound]
        guard first == UInt8(ascii: "-") || Self.isDigit(first) else { throw wrongType(at: path, expected: expected, span) }
    }

    func wholeNumber<T>(in span: Range<Int>, at path: String, limit: UInt64, negativeLimit: UInt64,
                                _ make: (Bool, UInt64) -> T) throws(JSONLineError) -> T {
        try requireNumber(span, at: path, "a whole number")
        let negative = bytes[span.lowerBound] == UInt8(ascii: "-")
        let digits = negative ? span.lowerBound + 1..<span.upperBound : span
        let magnitude: UInt64
        if let plain = DecimalDigits.value(bytes, digits) {
            magnitude = plain
        } else if let value = Double(String(decoding: UnsafeBufferPointer(rebasing: bytes[digits]), as: UTF8.self)),
                  value == value.rounded(), value <= Double(1 << 53) {
            magnitude = UInt64(value)  // a decimal or exponent form, whole and exact
        } else {
            throw wrongType(at: path, expected: "a whole number", span)
        }
        guard magnitude <= (negative ? negativeLimit : limit) else {
            throw JSONLineError(reason: "wrong type for \"\(path)\": \(negative ? "-" : "")\(magnitude) does not fit")
        }
        return make(negative, magnitude)
    }

    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    /// The text of a string's inside (already checked by `stringSpan`) with its escapes
    /// resolved; a lone UTF-16 surrogate is refused.
    /// Which of `names` a key is; keys with escapes (rare) are compared as text.
    private func field(named key: Range<Int>, escaped: Bool, in names: FieldNames, tryingFirst first: Int) throws(JSONLineError) -> Int? {
        let inner = key.lowerBound + 1..<key.upperBound - 1
        guard escaped else { return names.index(of: UnsafeBufferPointer(rebasing: bytes[inner]), tryingFirst: first) }
        let text = try Self.unescape(bytes, inner, at: "a member name")
        return names.names.firstIndex(of: text)
    }

    private static func join(_ path: String, _ name: String) -> String {
        path.isEmpty ? name : "\(path).\(name)"
    }
}
