/// Rewrites a URL to one canonical spelling (RFC 3986 §6.2.2 plus the rules
/// image caches need), so spellings of one resource share a key and different
/// resources never do:
/// - scheme and host lower-cased, the scheme's default port dropped;
/// - percent-encoding normalised: escapes of unreserved characters decoded,
///   other escapes upper-cased, spaces and non-ASCII bytes encoded (URLs pasted
///   with spaces); `%252F` stays double-encoded, since it names another resource;
/// - "." and ".." path segments resolved, an empty path written "/";
/// - the fragment dropped (never sent to the server);
/// - query items sorted by name (stably) and volatile ones dropped: tracking
///   parameters (`utm_*`) and per-response tokens (Unsplash `ixid`) that do
///   not change the image.
/// `http` and `https` stay distinct: they are different resources.
///
/// `resourceIdentity` keeps only the rewrites that cannot change the resource (RFC 3986
/// §6.2.2 and RFC 3987's mapping of non-ASCII bytes): it is what "the same picture" means
/// wherever a recording has no bytes to tell (a HAR without bodies). No Unicode
/// normalisation is done anywhere: `café` in NFC and in NFD are two names, as a server's
/// file system has them.
public struct URLNormalizer: Hashable, Sendable {
    /// Query parameter names to drop; a trailing `*` matches any suffix.
    public var volatileParameters: [String] {
        didSet { patterns = Self.compile(volatileParameters) }
    }
    private var patterns: [(prefix: [UInt8], isPrefix: Bool)]

    /// Whether query items are sorted by name (a server may read them in order: only a cache key may).
    public var sortsQuery: Bool

    public static let defaultVolatileParameters = ["utm_*", "ixid"]

    /// One spelling per resource: case of scheme, host and escapes, unreserved escapes
    /// decoded, non-ASCII bytes escaped, default port, dot segments, fragment; the query
    /// as it is.
    public static let resourceIdentity = URLNormalizer(volatileParameters: [], sortsQuery: false)

    public init(volatileParameters: [String] = URLNormalizer.defaultVolatileParameters, sortsQuery: Bool = true) {
        self.volatileParameters = volatileParameters
        self.sortsQuery = sortsQuery
        patterns = Self.compile(volatileParameters)
    }

    public static func == (a: URLNormalizer, b: URLNormalizer) -> Bool {
        a.volatileParameters == b.volatileParameters && a.sortsQuery == b.sortsQuery
    }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(volatileParameters)
        hasher.combine(sortsQuery)
    }

    private static func compile(_ names: [String]) -> [(prefix: [UInt8], isPrefix: Bool)] {
        names.map { name in
            let lowered = Array(name.lowercased().utf8)
            return lowered.last == UInt8(ascii: "*") ? (Array(lowered.dropLast()), true) : (lowered, false)
        }
    }

    public func normalize(_ url: String) -> String {
        withUTF8Bytes(url) { bytes in
            ByteWriter.string(capacity: Self.maximumLength(of: bytes.count)) { writer in
                append(URLParts(bytes), of: bytes, to: &writer)
            }
        }
    }

    /// The longest a normalised URL of `count` bytes can be: every byte
    /// escaped (3 each), plus "//", "/" and "?" added.
    static func maximumLength(of count: Int) -> Int { 3 * count + 8 }

    func append(_ parts: URLParts, of bytes: UnsafeBufferPointer<UInt8>, to output: inout ByteWriter) {
        if let scheme = parts.scheme {
            for index in scheme { output.append(bytes[index].lowercasedASCII) }
            output.append(UInt8(ascii: ":"))
        }
        if let host = parts.host {
            output.append(UInt8(ascii: "/"))
            output.append(UInt8(ascii: "/"))
            if let userInfo = parts.userInfo {
                output.appendNormalizingEscapes(bytes, userInfo)
                output.append(UInt8(ascii: "@"))
            }
            let hostStart = output.count
            output.appendNormalizingEscapes(bytes, host)
            for index in hostStart..<output.count { output[index] = output[index].lowercasedASCII }
            // A host never ends in ":" (that is an empty port, which means none); dropping it
            // keeps normalising idempotent when a default port followed one (found by fuzzing).
            while output.count > hostStart, output[output.count - 1] == UInt8(ascii: ":") { output.truncate(to: output.count - 1) }
            if let port = parts.port, !port.isEmpty, !isDefault(port: port, of: parts.scheme, in: bytes) {
                output.append(UInt8(ascii: ":"))
                for index in port { output.append(bytes[index]) }
            }
        }
        let pathStart = output.count
        output.appendNormalizingEscapes(bytes, parts.path)
        if hasDotSegment(output.written(from: pathStart)) {
            let resolved = removeDotSegments(String(decoding: output.written(from: pathStart), as: UTF8.self))
            output.truncate(to: pathStart)
            output.append(resolved.utf8)
        }
        if parts.host == nil, let prefix = pathPrefixKeepingItAPath(output.written(from: pathStart), hasScheme: parts.scheme != nil) {
            let path = Array(output.written(from: pathStart))
            output.truncate(to: pathStart)
            output.append(prefix.utf8)
            output.append(path)
        }
        if output.count == pathStart, parts.host != nil { output.append(UInt8(ascii: "/")) }
        if let query = parts.query { appendQuery(bytes, query, to: &output) }
    }

    /// Resolving dots or decoding escapes can leave a path that the next parse reads as an
    /// authority ("//x") or a scheme ("a:b" from "%61:b"); RFC 3986 §5.3 keeps it a path with
    /// "/." or "./" in front, so normalising stays idempotent.
    private func pathPrefixKeepingItAPath(_ path: UnsafeBufferPointer<UInt8>, hasScheme: Bool) -> String? {
        if path.count >= 2, path[0] == UInt8(ascii: "/"), path[1] == UInt8(ascii: "/") { return "/." }
        guard !hasScheme, let colon = path.firstIndex(of: UInt8(ascii: ":")),
              URLParts.isScheme(path, 0..<colon) else { return nil }
        return "./"
    }

    /// Normalises each item, drops volatile ones, and appends the rest sorted
    /// by name (stable), using stack scratch space.
    private func appendQuery(_ bytes: UnsafeBufferPointer<UInt8>, _ query: Range<Int>, to output: inout ByteWriter) {
        let itemCount = query.reduce(1) { $0 + (bytes[$1] == UInt8(ascii: "&") ? 1 : 0) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumLength(of: query.count)) { scratch in
            withUnsafeTemporaryAllocation(of: (start: Int, nameEnd: Int, end: Int).self, capacity: itemCount) { ranges in
                var items = ByteWriter(scratch)
                var kept = 0
                var cursor = query.lowerBound
                while cursor <= query.upperBound {
                    let end = URLParts.first(UInt8(ascii: "&"), in: bytes, cursor..<query.upperBound) ?? query.upperBound
                    if end > cursor {
                        let start = items.count
                        items.appendNormalizingEscapes(bytes, cursor..<end)
                        let written = items.written(from: start)
                        let nameEnd = start + (written.firstIndex(of: UInt8(ascii: "=")) ?? written.count)
                        if isVolatile(items.written(from: start).prefix(nameEnd - start)) {
                            items.truncate(to: start)
                        } else {
                            ranges[kept] = (start, nameEnd, items.count)
                            kept += 1
                        }
                    }
                    cursor = end + 1
                }
                guard kept > 0 else { return }
                let all = items.written(from: 0)
                func name(_ range: (start: Int, nameEnd: Int, end: Int)) -> Slice<UnsafeBufferPointer<UInt8>> {
                    all[range.start..<range.nameEnd]
                }
                // Insertion sort: stable, and queries are short.
                for index in 1..<kept where sortsQuery {
                    let current = ranges[index]
                    var position = index
                    while position > 0, name(current).lexicographicallyPrecedes(name(ranges[position - 1])) {
                        ranges[position] = ranges[position - 1]
                        position -= 1
                    }
                    ranges[position] = current
                }
                output.append(UInt8(ascii: "?"))
                for index in 0..<kept {
                    if index > 0 { output.append(UInt8(ascii: "&")) }
                    output.append(all, ranges[index].start..<ranges[index].end)
                }
            }
        }
    }

    private func isVolatile(_ name: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        patterns.contains { pattern in
            guard pattern.isPrefix ? name.count >= pattern.prefix.count : name.count == pattern.prefix.count else { return false }
            return zip(name, pattern.prefix).allSatisfy { $0.lowercasedASCII == $1 }
        }
    }

    private func isDefault(port: Range<Int>, of scheme: Range<Int>?, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let scheme else { return false }
        let name = String(decoding: scheme.map { bytes[$0].lowercasedASCII }, as: UTF8.self)
        let number = String(decoding: port.map { bytes[$0] }, as: UTF8.self)
        switch name {
        case "http", "ws": return number == "80"
        case "https", "wss": return number == "443"
        default: return false
        }
    }
}

/// Whether a path has a "." or ".." segment (a file extension is not one):
/// a dot right after a "/" or the start, followed by "/", the end, or ".".
private func hasDotSegment(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
    let dot = UInt8(ascii: "."), slash = UInt8(ascii: "/")
    var cursor = 0
    // Dots are few in image paths: jump from one to the next.
    while let index = URLParts.first(dot, in: path, cursor..<path.count) {
        cursor = index + 1
        guard index == 0 || path[index - 1] == slash else { continue }
        let next = index + 1 < path.count ? path[index + 1] : slash
        if next == slash { return true }
        if next == dot, index + 2 >= path.count || path[index + 2] == slash { return true }
    }
    return false
}

/// Byte classes as bit sets, one bit per byte value in four words (constants, so no
/// lazily initialised table is consulted per byte): RFC 3986 unreserved bytes (escapes of
/// them are decoded), and bytes that may not appear raw in a URL (they are percent-encoded).
/// `URLByteClassTests` checks both against their definitions.
@inline(__always) func isUnreserved(_ byte: UInt8) -> Bool {
    contains(byte, 0x03FF600000000000, 0x47FFFFFE87FFFFFE, 0x0000000000000000, 0x0000000000000000)
}

@inline(__always) func mustEscape(_ byte: UInt8) -> Bool {
    contains(byte, 0x50000005FFFFFFFF, 0xB800000150000000, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
}

/// The bytes written as they are: neither escaped nor a "%" that may start an escape.
@inline(__always) func isCopiedVerbatim(_ byte: UInt8) -> Bool {
    contains(byte, 0xAFFFFFDA00000000, 0x47FFFFFEAFFFFFFF, 0x0000000000000000, 0x0000000000000000)
}

@inline(__always) private func contains(_ byte: UInt8, _ word0: UInt64, _ word1: UInt64, _ word2: UInt64, _ word3: UInt64) -> Bool {
    let word = switch byte >> 6 {
    case 0: word0
    case 1: word1
    case 2: word2
    default: word3
    }
    return word >> (byte & 63) & 1 == 1
}

@inline(__always) func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
}

extension ByteWriter {
    /// Appends `bytes[range]` with escapes of unreserved characters decoded,
    /// other escapes upper-cased, and bytes that may not appear raw encoded.
    mutating func appendNormalizingEscapes(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        @inline(__always) func escape(_ byte: UInt8) {
            append(UInt8(ascii: "%"))
            append(hexDigit(byte >> 4))
            append(hexDigit(byte & 0xF))
        }
        var index = range.lowerBound
        while index < range.upperBound {
            // Most of a URL is copied as it is: find the run and move it at once.
            var runEnd = index
            while runEnd < range.upperBound, isCopiedVerbatim(bytes[runEnd]) { runEnd += 1 }
            if runEnd > index {
                append(bytes, index..<runEnd)
                index = runEnd
                continue
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < range.upperBound, let value = hexValue(bytes[index + 1], bytes[index + 2]) {
                if isUnreserved(value) { append(value) } else { escape(value) }
                index += 3
            } else {
                // Past the run, a byte is one that must be escaped or a "%" that starts no escape: a
                // literal percent sign, written as "%25", so that decoding a later escape cannot make
                // it start one on the next pass (found by fuzzing).
                escape(byte)
                index += 1
            }
        }
    }
}

/// RFC 3986 §5.2.4: resolves "." and ".." segments (rare in image URLs, so
/// this slower path only runs when the path has a dot).
func removeDotSegments(_ path: String) -> String {
    let segments = path.split(separator: "/", omittingEmptySubsequences: false)
    guard segments.contains(where: { $0 == "." || $0 == ".." }) else { return path }
    var kept: [Substring] = []
    for (index, segment) in segments.enumerated() {
        switch segment {
        case ".":
            if index == segments.count - 1 { kept.append("") }
        case "..":
            if kept.count > 1 { kept.removeLast() }
            if index == segments.count - 1 { kept.append("") }
        default:
            kept.append(segment)
        }
    }
    return kept.joined(separator: "/")
}
