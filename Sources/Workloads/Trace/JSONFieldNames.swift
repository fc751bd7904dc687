/// The names of the fields a reader wants, laid out for quick comparison with keys: a
/// name's length and first eight bytes settle almost every comparison.
struct FieldNames {
    let names: [String]
    private let lengths: [Int]
    private let prefixes: [UInt64]
    private let utf8: [[UInt8]]

    init(_ names: [String]) {
        precondition(names.count <= FieldSpans.capacity, "FieldSpans holds \(FieldSpans.capacity) fields")
        self.names = names
        utf8 = names.map { Array($0.utf8) }
        lengths = utf8.map(\.count)
        prefixes = utf8.map { Self.prefix($0.withUnsafeBufferPointer { $0 }) }
    }

    var count: Int { names.count }

    /// Which name `key` is, looking at `first` first (the usual order of fields).
    func index(of key: UnsafeBufferPointer<UInt8>, tryingFirst first: Int) -> Int? {
        let keyPrefix = Self.prefix(key)
        for offset in 0..<count {
            let field = first + offset < count ? first + offset : first + offset - count
            guard lengths[field] == key.count, prefixes[field] == keyPrefix else { continue }
            if key.count <= 8 || utf8[field].withUnsafeBufferPointer({ $0.elementsEqual(key) }) { return field }
        }
        return nil
    }

    /// The first eight bytes (fewer, zero-padded, for a shorter text).
    private static func prefix(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<min(8, bytes.count) { word |= UInt64(bytes[index]) << (8 * index) }
        return word
    }
}

/// Where each wanted field's value lies in a line, by the field's place in its list of
/// names (at most `capacity`); kept inline, two offsets a field, so reading a line allocates nothing.
struct FieldSpans {
    /// An image request has 20 fields.
    static let capacity = 24
    private var packed = InlineArray<24, UInt64>(repeating: 0)

    subscript(field: Int) -> Range<Int>? {
        get {
            let value = packed[field]
            return value == 0 ? nil : Int(value >> 32)..<Int(value & 0xFFFF_FFFF)
        }
        set {
            packed[field] = newValue.map { UInt64($0.lowerBound) << 32 | UInt64($0.upperBound) } ?? 0
        }
    }
}
