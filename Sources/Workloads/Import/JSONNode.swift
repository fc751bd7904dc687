import Foundation

/// Why an imported file could not be used, with where: the file and the path of the bad field.
public enum ImportError: Error, CustomStringConvertible, Equatable {
    case unreadable(file: String, reason: String)
    case notJSON(file: String, reason: String)
    case badField(file: String, path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason): "\(file): \(reason)"
        case .notJSON(let file, let reason): "\(file): not valid JSON (\(reason))"
        case .badField(let file, let path, let reason): "\(file): \(path): \(reason)"
        }
    }
}

/// A value inside a parsed JSON document that knows its path (`log.entries[3].response.status`),
/// so every complaint names the field.
struct JSONNode {
    let value: Any
    let path: String
    let file: String

    static func parse(_ data: Data, file: String) throws(ImportError) -> JSONNode {
        // JSON-Viewer exports start with `//` comment lines; real NewsAPI files carry them.
        var text = Substring(decoding: data, as: UTF8.self)
        while text.hasPrefix("//") || text.first?.isWhitespace == true {
            if text.hasPrefix("//") { text = text.drop { $0 != "\n" } } else { text = text.dropFirst() }
        }
        do {
            let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            return JSONNode(value: value, path: "$", file: file)
        } catch {
            throw .notJSON(file: file, reason: PlainFailure.clause(error))
        }
    }

    func fail(_ reason: String) -> ImportError { .badField(file: file, path: path, reason: reason) }

    var isNull: Bool { Self.isNSNull(value) }

    /// Whether a parsed value is JSON's null, asked of its type: `is NSNull` would first
    /// bridge a dictionary or array to Foundation's class to answer (a third of a HAR import).
    static func isNSNull(_ value: Any) -> Bool { type(of: value) == NSNull.self }

    /// The member `key`, or nil when absent or null.
    func optional(_ key: String) throws(ImportError) -> JSONNode? {
        guard let object = value as? [String: Any] else { throw fail("expected an object") }
        guard let member = object[key], !Self.isNSNull(member) else { return nil }
        return JSONNode(value: member, path: path + "." + key, file: file)
    }

    func required(_ key: String) throws(ImportError) -> JSONNode {
        guard let member = try optional(key) else { throw JSONNode(value: NSNull(), path: path + "." + key, file: file).fail("missing") }
        return member
    }

    func has(_ key: String) -> Bool { (value as? [String: Any])?[key] != nil }

    func array() throws(ImportError) -> [JSONNode] {
        guard let items = value as? [Any] else { throw fail("expected an array") }
        return items.enumerated().map { JSONNode(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    func string() throws(ImportError) -> String {
        guard let text = value as? String else { throw fail("expected a string") }
        return text
    }

    func int() throws(ImportError) -> Int {
        if let number = value as? NSNumber, !number.isJSONBoolean,
           number.doubleValue == number.doubleValue.rounded(), abs(number.doubleValue) < 1e15 {
            return number.intValue
        }
        if let text = value as? String, let number = Int(text) { return number }  // ids arrive as strings too
        if let number = value as? NSNumber, !number.isJSONBoolean, number.doubleValue.isFinite, number.doubleValue == number.doubleValue.rounded() {
            throw fail("\(number) is too large for this field (at most 10^15)")
        }
        throw fail("expected an integer")
    }

    func double() throws(ImportError) -> Double {
        guard let number = value as? NSNumber, !number.isJSONBoolean else { throw fail("expected a number") }
        return number.doubleValue
    }

    func bool() throws(ImportError) -> Bool {
        guard let number = value as? NSNumber, number.isJSONBoolean else { throw fail("expected true or false") }
        return number.boolValue
    }
}

extension NSNumber {
    /// JSONSerialization gives `true`/`false` as NSNumbers of type `c` (char), never used for numbers.
    fileprivate var isJSONBoolean: Bool { objCType.pointee == CChar(UInt8(ascii: "c")) }
}
