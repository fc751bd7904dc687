import Foundation

/// Writes one event line exactly as `JSONEncoder` with sorted keys and unescaped slashes
/// writes `TraceEvent` (a test holds the two byte for byte on every dataset), about ten
/// times faster: a HAR import of a million entries spent a third of its time encoding.
/// Strings of printable ASCII are copied; any other string, and every `Double`, is
/// written by `JSONEncoder` itself, so its escaping and number forms are the rule.
struct TraceLineEncoder {
    private let fallback: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    /// `JSONEncoder`'s text of each screen scale met (there are a handful).
    private var doubles: [Double: [UInt8]] = [:]

    mutating func append(_ event: TraceEvent, to line: inout [UInt8]) throws {
        line.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: StaticString) { Self.member(name, first: &first, to: &line) }
        func time() { key("t"); integer(event.time, to: &line) }
        switch event.kind {
        case .session(let number):
            key("session"); integer(number, to: &line); time(); key("type"); try string("session", to: &line)
        case .api(let url):
            time(); key("type"); try string("api", to: &line); key("url"); try string(url, to: &line)
        case .image(let image):
            key("image"); try append(image, to: &line); time(); key("type"); try string("image", to: &line)
        case .cancel(let id):
            key("id"); integer(id, to: &line); time(); key("type"); try string("cancel", to: &line)
        case .memoryWarning(let level):
            key("level"); try string(level, to: &line); time(); key("type"); try string("memoryWarning", to: &line)
        case .relaunch:
            time(); key("type"); try string("relaunch", to: &line)
        case .offline(let offline):
            key("offline"); line.append(contentsOf: (offline ? "true" : "false").utf8); time(); key("type"); try string("offline", to: &line)
        case .invalidate(let url):
            time(); key("type"); try string("invalidate", to: &line); key("url"); try string(url, to: &line)
        }
        line.append(UInt8(ascii: "}"))
    }

    /// The image object, its keys in byte order as `JSONEncoder` sorts them; absent optionals left out.
    private mutating func append(_ image: ImageRequestEvent, to line: inout [UInt8]) throws {
        line.append(UInt8(ascii: "{"))
        var first = true
        func key(_ name: StaticString) { Self.member(name, first: &first, to: &line) }
        if let alpha = image.alpha { key("alpha"); line.append(contentsOf: (alpha ? "true" : "false").utf8) }
        key("boxHeight"); integer(image.boxHeight, to: &line)
        key("boxWidth"); integer(image.boxWidth, to: &line)
        key("bytes"); integer(image.bytes, to: &line)
        key("content"); line.append(contentsOf: String(image.content).utf8)
        if let milliseconds = image.fetchBlocked { key("fetchBlocked"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchConnect { key("fetchConnect"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchDNS { key("fetchDNS"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchMilliseconds { key("fetchMilliseconds"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchReceive { key("fetchReceive"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchSend { key("fetchSend"); integer(milliseconds, to: &line) }
        if let milliseconds = image.fetchWait { key("fetchWait"); integer(milliseconds, to: &line) }
        key("format"); try string(image.format, to: &line)
        key("height"); integer(image.height, to: &line)
        key("id"); integer(image.id, to: &line)
        key("priority"); try string(image.priority.rawValue, to: &line)
        key("scale"); try double(image.scale, to: &line)
        if let estimate = image.sizeEstimate { key("sizeEstimate"); try string(estimate.rawValue, to: &line) }
        key("url"); try string(image.url, to: &line)
        key("width"); integer(image.width, to: &line)
        line.append(UInt8(ascii: "}"))
    }

    /// `"name":`, after a comma unless it is the object's first member.
    private static func member(_ name: StaticString, first: inout Bool, to line: inout [UInt8]) {
        if !first { line.append(UInt8(ascii: ",")) }
        first = false
        line.append(UInt8(ascii: "\""))
        line.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        line.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    private func integer(_ value: Int, to line: inout [UInt8]) { line.append(contentsOf: String(value).utf8) }

    private mutating func double(_ value: Double, to line: inout [UInt8]) throws {
        if let text = doubles[value] { return line.append(contentsOf: text) }
        let text = Array(try fallback.encode(value))
        doubles[value] = text
        line.append(contentsOf: text)
    }

    private func string(_ value: String, to line: inout [UInt8]) throws {
        var value = value
        let plain = value.withUTF8 { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        }
        guard plain else { return line.append(contentsOf: try fallback.encode(value)) }
        line.append(UInt8(ascii: "\""))
        value.withUTF8 { line.append(contentsOf: $0) }
        line.append(UInt8(ascii: "\""))
    }
}
