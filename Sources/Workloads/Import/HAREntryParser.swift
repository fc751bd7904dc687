import Foundation

/// Parses one HAR entry into the values `JSONNode` reads, keeping only the members the
/// importer uses (`Wanted`) and stepping over the rest by matching brackets: the
/// request and response headers, cookies and a body's text dominate an entry's bytes, and
/// Foundation's parser built objects for all of them (half of an import's time). Numbers
/// become `NSNumber`s, `true` and `false` boolean ones, `null` `NSNull`, as
/// `JSONSerialization` gives them; a string with escapes is decoded by `JSONSerialization`.
struct HAREntryParser {
    /// The members kept at each level; `nil` keeps everything below.
    final class Wanted: Sendable {
        let members: [String: Wanted?]
        init(_ members: [String: Wanted?]) { self.members = members }

        static let entry = Wanted([
            "startedDateTime": nil, "time": nil, "pageref": nil,
            "timings": Wanted(["blocked": nil, "dns": nil, "connect": nil, "send": nil, "wait": nil, "receive": nil]),
            "request": Wanted(["url": nil]),
            "response": Wanted([
                "status": nil, "bodySize": nil, "headers": nil, "headersSize": nil, "_transferSize": nil,
                "content": Wanted(["size": nil, "mimeType": nil, "text": nil, "encoding": nil]),
            ]),
        ])
    }

    struct Malformed: Error {
        let offset: Int
        let reason: String
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    /// The entry's value, or `Malformed` with the byte offset within it.
    static func parse(_ entry: [UInt8], wanted: Wanted = .entry) throws(Malformed) -> Any {
        try entry.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) throws(Malformed) -> Any in
            var parser = HAREntryParser(bytes: buffer)
            let value = try parser.value(wanted)
            parser.skipSpace()
            guard parser.position == buffer.count else { throw parser.fail("text after the entry") }
            return value
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private func fail(_ reason: String) -> Malformed { Malformed(offset: position, reason: reason) }

    private mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
    }

    @inline(__always) private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Whether `text` follows JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    private static func isNumber(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func digits() -> Int {
            let start = index
            while index < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[index]) { index += 1 }
            return index - start
        }
        if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
        guard index < text.count else { return false }
        if text[index] == UInt8(ascii: "0") { index += 1 } else if digits() == 0 { return false }
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return false }
        }
        if index < text.count, text[index] == UInt8(ascii: "e") || text[index] == UInt8(ascii: "E") {
            index += 1
            if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return false }
        }
        return index == text.count
    }

    /// A value; an object keeps only `wanted`'s members (all when `wanted` is nil).
    private mutating func value(_ wanted: Wanted?) throws(Malformed) -> Any {
        skipSpace()
        guard position < bytes.count else { throw fail("a value is missing") }
        switch bytes[position] {
        case UInt8(ascii: "{"):
            position += 1
            var object: [String: Any] = [:]
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "}") { position += 1; return object }
            while true {
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let key = try string()
                skipSpace()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                position += 1
                if let wanted {
                    if let inner = wanted.members[key] { object[key] = try value(inner) } else { try skip() }
                } else {
                    object[key] = try value(nil)
                }
                skipSpace()
                guard position < bytes.count else { throw fail("an object without its '}'") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "}") { position += 1; return object }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            position += 1
            var array: [Any] = []
            skipSpace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") { position += 1; return array }
            while true {
                array.append(try value(wanted))
                skipSpace()
                guard position < bytes.count else { throw fail("an array without its ']'") }
                if bytes[position] == UInt8(ascii: ",") { position += 1; continue }
                if bytes[position] == UInt8(ascii: "]") { position += 1; return array }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return try string()
        default:
            return try word()
        }
    }

    /// A string; escapes are decoded by `JSONSerialization`, which knows every form.
    private mutating func string() throws(Malformed) -> String {
        let start = position
        position += 1
        var escaped = false
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            if bytes[position] == UInt8(ascii: "\\") { escaped = true; position += 1 }
            else if bytes[position] < 0x20 { throw fail("a control character in a string") }
            position += 1
        }
        guard position < bytes.count else { throw fail("a string without its closing quote") }
        position += 1
        guard escaped else { return String(decoding: UnsafeBufferPointer(rebasing: bytes[(start + 1)..<(position - 1)]), as: UTF8.self) }
        let quoted = Data(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        guard let text = (try? JSONSerialization.jsonObject(with: quoted, options: [.fragmentsAllowed])) as? String else {
            throw Malformed(offset: start, reason: "a string with a bad escape")
        }
        return text
    }

    /// `true`, `false`, `null` or a number (JSON's grammar: no leading zeros, no bare dot).
    private mutating func word() throws(Malformed) -> Any {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || Self.isSpace(byte) { break }
            position += 1
        }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<position])
        let text = String(decoding: raw, as: UTF8.self)
        switch text {
        case "true": return NSNumber(value: true)
        case "false": return NSNumber(value: false)
        case "null": return NSNull()
        default: break
        }
        guard Self.isNumber(raw) else {
            throw Malformed(offset: start, reason: "not a JSON value: \(text.prefix(32))")
        }
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let integer = Int(text) { return NSNumber(value: integer) }
        guard let double = Double(text) else { throw Malformed(offset: start, reason: "not a number: \(text.prefix(32))") }
        return NSNumber(value: double)
    }

    /// Steps over a value by matching brackets and quotes.
    private mutating func skip() throws(Malformed) {
        skipSpace()
        guard position < bytes.count else { throw fail("a value is missing") }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            _ = try stringEnd()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""): try stringEnd(); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { position += 1; return }
                default: break
                }
                position += 1
            }
            throw fail("an object or array without its end")
        default:
            _ = try word()
        }
    }

    private mutating func stringEnd() throws(Malformed) {
        position += 1
        while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
            position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
        }
        guard position < bytes.count else { throw fail("a string without its closing quote") }
        position += 1
    }
}
