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
public struct URLNormalizer: Hashable, Sendable {
    /// Query parameter names to drop; a trailing `*` matches any suffix.
    public var volatileParameters: [String]

    public static let defaultVolatileParameters = ["utm_*", "ixid"]

    public init(volatileParameters: [String] = URLNormalizer.defaultVolatileParameters) {
        self.volatileParameters = volatileParameters
    }

    public func normalize(_ url: String) -> String {
        let parts = URLParts(url)
        var result = ""
        result.reserveCapacity(url.utf8.count)
        let scheme = parts.scheme.map { $0.lowercased() }
        if let scheme { result += scheme + ":" }
        if let host = parts.host {
            result += "//"
            if let userInfo = parts.userInfo { result += normalizeEscapes(userInfo) + "@" }
            result += normalizeEscapes(host).lowercased()
            if let port = parts.port, !port.isEmpty, port != Self.defaultPort(of: scheme) { result += ":" + port }
        }
        let path = removeDotSegments(normalizeEscapes(parts.path))
        result += path.isEmpty && parts.host != nil ? "/" : path
        if let query = parts.query {
            let items = query.split(separator: "&", omittingEmptySubsequences: true)
                .map { normalizeEscapes($0) }
                .filter { !isVolatile($0) }
                .enumerated()
                .sorted { a, b in
                    let (nameA, nameB) = (a.element.queryName, b.element.queryName)
                    return nameA != nameB ? nameA < nameB : a.offset < b.offset
                }
                .map(\.element)
            if !items.isEmpty { result += "?" + items.joined(separator: "&") }
        }
        return result
    }

    private func isVolatile(_ item: String) -> Bool {
        let name = item.queryName.lowercased()
        return volatileParameters.contains { pattern in
            pattern.hasSuffix("*") ? name.hasPrefix(pattern.dropLast().lowercased()) : name == pattern.lowercased()
        }
    }

    private static func defaultPort(of scheme: String?) -> Substring? {
        switch scheme {
        case "http", "ws": "80"
        case "https", "wss": "443"
        default: nil
        }
    }
}

extension String {
    /// The name of a query item ("w" in "w=400").
    fileprivate var queryName: Substring { self[..<(firstIndex(of: "=") ?? endIndex)] }
}

/// RFC 3986 unreserved characters: never need escaping, so escapes of them are decoded.
private func isUnreserved(_ byte: UInt8) -> Bool {
    byte.isASCIILetter || byte.isASCIIDigit || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
}

private let hexDigits = Array("0123456789ABCDEF".utf8)

/// Decodes escapes of unreserved characters, upper-cases the rest, and encodes
/// bytes that may not appear raw (spaces, controls, non-ASCII).
func normalizeEscapes(_ text: Substring) -> String {
    let input = Array(text.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(input.count)
    func escape(_ byte: UInt8) {
        output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
    }
    var index = 0
    while index < input.count {
        let byte = input[index]
        if byte == UInt8(ascii: "%"), index + 2 < input.count, let value = hexValue(input[index + 1], input[index + 2]) {
            if isUnreserved(value) { output.append(value) } else { escape(value) }
            index += 3
            continue
        }
        if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "^")
            || byte == UInt8(ascii: "`") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "|")
            || byte == UInt8(ascii: "}") {
            escape(byte)
        } else {
            output.append(byte)
        }
        index += 1
    }
    return String(decoding: output, as: UTF8.self)
}

/// RFC 3986 §5.2.4: resolves "." and ".." segments.
func removeDotSegments(_ path: String) -> String {
    guard path.contains(".") else { return path }
    let segments = path.split(separator: "/", omittingEmptySubsequences: false)
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
