/// Appends bytes to a buffer sized in advance, without the per-byte checks
/// of `Array.append`: keys are built on every request.
struct ByteWriter {
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    /// Builds a string of at most `capacity` bytes.
    static func string(capacity: Int, _ body: (inout ByteWriter) -> Void) -> String {
        String(unsafeUninitializedCapacity: max(capacity, 1)) { buffer in
            var writer = ByteWriter(buffer)
            body(&writer)
            return writer.count
        }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        precondition(count < buffer.count, "key buffer sized too small")
        buffer[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { append(byte) }
    }

    /// Copies `bytes[range]` in one move: one bounds check, not one a byte.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        precondition(range.count <= buffer.count - count, "key buffer sized too small")
        guard let source = bytes.baseAddress, let target = buffer.baseAddress, !range.isEmpty else { return }
        (target + count).update(from: source + range.lowerBound, count: range.count)
        count += range.count
    }

    /// Appends the UTF-8 bytes of `text` in one move.
    @inline(__always)
    mutating func append(utf8 text: String) {
        withUTF8Bytes(text) { append($0, 0..<$0.count) }
    }

    subscript(index: Int) -> UInt8 {
        get { buffer[index] }
        set { buffer[index] = newValue }
    }

    /// The bytes written from `start` on.
    func written(from start: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[start..<count])
    }

    /// Drops what was written from `start` on.
    mutating func truncate(to start: Int) { count = start }

    /// Rewrites what was written from `start` on with every byte above 0x7F as a %XX
    /// escape (RFC 3987's mapping of an IRI to a URI): keys are then ASCII, compared byte
    /// for byte by any string type, and two Unicode spellings of a name stay two keys.
    mutating func escapeNonASCII(from start: Int) {
        let region = written(from: start)
        guard region.contains(where: { $0 > 0x7F }) else { return }
        let copy = Array(region)
        truncate(to: start)
        for byte in copy {
            if byte > 0x7F {
                append(UInt8(ascii: "%"))
                append(hexDigit(byte >> 4))
                append(hexDigit(byte & 0xF))
            } else {
                append(byte)
            }
        }
    }

    /// Appends `bytes[range]` with %XX escapes decoded (invalid escapes kept).
    mutating func appendDecoded(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < range.upperBound,
               let value = hexValue(bytes[index + 1], bytes[index + 2]) {
                append(value)
                index += 3
            } else {
                append(bytes[index])
                index += 1
            }
        }
    }
}
