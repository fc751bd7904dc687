import CZlib
import Foundation

/// Walks a HAR document's entries one at a time, reading its bytes in 1 MiB chunks:
/// memory holds the entry at hand (a body, when the HAR carries one), never the whole
/// document, so a million entries import in the memory of one. Only `log.version` and
/// each of `log.entries` are parsed into values; every other member is skipped by
/// matching brackets. Malformed JSON is an `ImportError.notJSON` naming the byte offset.
struct HARStream {
    private let source: ByteSource
    let file: String

    init(path: String) throws(ImportError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw .unreadable(file: path, reason: "a folder, not a HAR file")
        }
        // zlib reads a plain file as it is and inflates a gzip one (a .har.gz) as it goes.
        guard FileManager.default.isReadableFile(atPath: path), let opened = gzopen(path, "rb") else {
            throw .unreadable(file: path, reason: "cannot open for reading")
        }
        source = ByteSource(file: opened, name: path)
        file = path
    }

    init(data: Data, file: String) {
        source = ByteSource(data: data, file: file)
        self.file = file
    }

    /// What the document says beside its entries: `log.version`, `log.creator.name` and
    /// `log.pages` (each small, parsed whole).
    struct Header {
        var version: JSONNode?
        var creator: String?
        var pages: [JSONNode] = []
    }

    /// What a walk read: the whole header and the number of entries.
    struct Read {
        var header: Header
        var entries: Int
    }

    /// Calls `body` with `transform` of each entry, in file order, after `entriesBegin` has been
    /// given what the header held before them; returns the whole header (a part may come after the
    /// entries) and the number of entries. Entries are parsed and transformed in batches on every
    /// core (parsing is most of an import); the first entry that fails in file order is the error.
    func forEachEntry<Transformed>(
        transform: @escaping @Sendable (JSONNode) throws(ImportError) -> Transformed,
        entriesBegin: (Header) throws(ImportError) -> Void = { _ in },
        _ body: (Transformed) throws(ImportError) -> Void
    ) throws(ImportError) -> Read {
        var batch: [[UInt8]] = []
        var batchBytes = 0
        var index = 0
        let file = file
        func drain() throws(ImportError) {
            guard !batch.isEmpty else { return }
            let results = Self.parallelMap(batch, first: index - batch.count) { bytes, number -> Result<Transformed, ImportError> in
                do throws(ImportError) {
                    let value = try ByteSource.parse(bytes, file: file, path: "$.log.entries[\(number)]")
                    return .success(try transform(JSONNode(value: value, path: "$.log.entries[\(number)]", file: file)))
                } catch {
                    return .failure(error)
                }
            }
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
            for result in results { try body(try result.get()) }
        }
        let read = try walk(entriesBegin: entriesBegin) { bytes throws(ImportError) in
            batch.append(bytes)
            batchBytes += bytes.count
            index += 1
            if batch.count >= Self.batchEntries || batchBytes >= Self.batchBytes { try drain() }
        }
        try drain()
        return read
    }

    /// Entries parsed together: enough to keep every core busy, few enough bytes to stay small.
    static let batchEntries = 4_096
    static let batchBytes = 32 << 20

    /// `transform` of each item, on every core, in order; `first` numbers the first item.
    private static func parallelMap<Result>(_ items: [[UInt8]], first: Int, _ transform: @Sendable ([UInt8], Int) -> Result) -> [Result] {
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, max(1, items.count / 64))
        let results = UnsafeMutableBufferPointer<Result>.allocate(capacity: items.count)
        defer { results.deallocate() }
        nonisolated(unsafe) let output = results  // each worker initialises its own range
        items.withUnsafeBufferPointer { input in
            nonisolated(unsafe) let input = input
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let range = (items.count * worker / workers)..<(items.count * (worker + 1) / workers)
                for index in range { (output.baseAddress! + index).initialize(to: transform(input[index], first + index)) }
            }
        }
        let collected = Array(results)
        _ = results.deinitialize()
        return collected
    }

    /// Walks the document, handing each entry's raw bytes to `entry`.
    private func walk(
        entriesBegin: (Header) throws(ImportError) -> Void, _ entry: ([UInt8]) throws(ImportError) -> Void
    ) throws(ImportError) -> Read {
        try source.skipLeadingComments()
        try source.expect(UInt8(ascii: "{"), "a JSON object")
        var header = Header()
        var entries: Int?
        var sawLog = false
        try source.members { key throws(ImportError) in
            guard key == "log" else { return try source.skipValue() }
            sawLog = true
            guard try source.peek() == UInt8(ascii: "{") else {
                // Scanned first: a document cut here is malformed JSON, which is the error to report.
                _ = try source.captureValue()
                throw JSONNode(value: NSNull(), path: "$.log", file: file).fail("expected an object")
            }
            source.advance()
            try source.members { key throws(ImportError) in
                switch key {
                case "version":
                    header.version = JSONNode(value: try source.parse(try source.captureValue()), path: "$.log.version", file: file)
                case "creator":
                    let creator = JSONNode(value: try source.parse(try source.captureValue()), path: "$.log.creator", file: file)
                    header.creator = try? creator.optional("name")?.string()
                case "pages":
                    let pages = JSONNode(value: try source.parse(try source.captureValue()), path: "$.log.pages", file: file)
                    header.pages = (try? pages.array()) ?? []
                case "entries":
                    guard try source.peek() == UInt8(ascii: "[") else {
                        _ = try source.captureValue()  // as for `log`: malformed JSON first
                        throw JSONNode(value: NSNull(), path: "$.log.entries", file: file).fail("expected an array")
                    }
                    source.advance()
                    try entriesBegin(header)
                    var count = 0
                    try source.elements { () throws(ImportError) in
                        try entry(try source.captureValue())
                        count += 1
                    }
                    entries = count
                default:
                    try source.skipValue()
                }
            }
        }
        try source.expectEnd()
        guard sawLog else { throw JSONNode(value: NSNull(), path: "$.log", file: file).fail("missing") }
        guard let entries else { throw JSONNode(value: NSNull(), path: "$.log.entries", file: file).fail("missing") }
        return Read(header: header, entries: entries)
    }
}

/// The bytes of a JSON document, from a file in chunks or from memory, with the few
/// steps `HARStream` needs: members of an object, elements of an array, a value's raw
/// bytes (kept across refills while it is captured), a value skipped.
private final class ByteSource {
    private let input: gzFile?
    private let file: String
    private var buffer: [UInt8]
    /// What one read fills, made at the first read and kept.
    private var chunk: [UInt8] = []
    private var position = 0
    /// Bytes dropped from the front of `buffer` so far, for offsets in messages.
    private var dropped = 0
    private var atEnd: Bool
    /// Where a capture began; the buffer keeps everything from there.
    private var captureStart: Int?
    static let chunk = 1 << 20

    init(file input: gzFile, name: String) {
        self.input = input
        file = name
        buffer = []
        atEnd = false
    }

    init(data: Data, file: String) {
        input = nil
        self.file = file
        buffer = Array(data)
        atEnd = true
    }

    deinit { if let input { gzclose(input) } }

    private func fail(_ reason: String) -> ImportError {
        .notJSON(file: file, reason: "at byte \(dropped + position): \(reason)")
    }

    /// Whether a byte is at `position`, reading more when needed.
    private func available() throws(ImportError) -> Bool {
        if position < buffer.count { return true }
        guard !atEnd, let input else { return false }
        let keep = captureStart ?? position
        if keep > 0 {
            buffer.removeFirst(keep)
            dropped += keep
            position -= keep
            if captureStart != nil { captureStart = 0 }
        }
        let before = buffer.count
        if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: Self.chunk) }
        let read = chunk.withUnsafeMutableBufferPointer { gzread(input, $0.baseAddress!, UInt32(Self.chunk)) }
        if read > 0 { buffer.append(contentsOf: chunk[..<Int(read)]) }
        var code: Int32 = Z_OK
        let message = gzerror(input, &code).map { String(cString: $0) } ?? ""
        if read < 0 || (code != Z_OK && code != Z_STREAM_END) {
            throw .unreadable(file: file, reason: code == Z_BUF_ERROR
                ? "compressed data cut short at byte \(dropped + before) (a truncated .gz)" : "read failed (\(message))")
        }
        guard read > 0 else {
            atEnd = true
            return false
        }
        return true
    }

    func advance() { position += 1 }

    private func skipSpace() throws(ImportError) {
        while try available() {
            switch buffer[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The next byte that is not white space, without taking it; nil at the end.
    func peek() throws(ImportError) -> UInt8? {
        try skipSpace()
        return try available() ? buffer[position] : nil
    }

    func expect(_ byte: UInt8, _ what: String) throws(ImportError) {
        guard try peek() == byte else { throw fail("expected \(what)") }
        position += 1
    }

    /// JSON-Viewer exports start with `//` comment lines; real API files carry them. A UTF-8
    /// byte order mark (Fiddler writes one, and HAR readers take it) comes before either.
    func skipLeadingComments() throws(ImportError) {
        if try available(), buffer[position...].starts(with: [0xEF, 0xBB, 0xBF]) {
            position += 3
        }
        while try peek() == UInt8(ascii: "/") {
            while try available(), buffer[position] != 0x0A { position += 1 }
        }
    }

    func expectEnd() throws(ImportError) {
        if try peek() != nil { throw fail("text after the document's end") }
    }

    /// Calls `body` with each member's key, positioned at its value, which `body` must
    /// take; the opening brace is already taken.
    func members(_ body: (String) throws(ImportError) -> Void) throws(ImportError) {
        if try peek() == UInt8(ascii: "}") { position += 1; return }
        while true {
            guard try peek() == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let key = try parse(try captureValue())
            guard let name = key as? String else { throw fail("expected a member name") }
            try expect(UInt8(ascii: ":"), "':' after a member name")
            try body(name)
            switch try peek() {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "}")?: position += 1; return
            default: throw fail("expected ',' or '}' in an object")
            }
        }
    }

    /// Calls `body` positioned at each element, which `body` must take; the opening
    /// bracket is already taken.
    func elements(_ body: () throws(ImportError) -> Void) throws(ImportError) {
        if try peek() == UInt8(ascii: "]") { position += 1; return }
        while true {
            try body()
            switch try peek() {
            case UInt8(ascii: ",")?: position += 1
            case UInt8(ascii: "]")?: position += 1; return
            default: throw fail("expected ',' or ']' in an array")
            }
        }
    }

    func skipValue() throws(ImportError) { try scanValue() }

    /// The raw bytes of the next value.
    func captureValue() throws(ImportError) -> [UInt8] {
        _ = try peek()
        captureStart = position
        defer { captureStart = nil }
        try scanValue()
        return Array(buffer[captureStart!..<position])
    }

    /// A captured value as Foundation's JSON objects.
    func parse(_ bytes: [UInt8]) throws(ImportError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw fail(PlainFailure.clause(error))
        }
    }

    /// An entry's bytes as the values the importer reads (`HAREntryParser`), on any thread.
    static func parse(_ bytes: [UInt8], file: String, path: String) throws(ImportError) -> Any {
        do {
            return try HAREntryParser.parse(bytes)
        } catch {
            throw .notJSON(file: file, reason: "\(path), byte \(error.offset) of the entry: \(error.reason)")
        }
    }

    /// Moves past one value: a string, or brackets matched to depth 0, or a bare word.
    private func scanValue() throws(ImportError) {
        guard let first = try peek() else { throw fail("the document ends where a value was expected") }
        if first != UInt8(ascii: "{"), first != UInt8(ascii: "[") {
            if first == UInt8(ascii: "\"") { return try scanString() }
            let start = position
            while try available() {
                switch buffer[position] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: break
                default: position += 1; continue
                }
                break
            }
            if position == start { throw fail("expected a value") }
            return
        }
        var depth = 0
        while try available() {
            // Through the buffered bytes at once (per-byte property access costs a check each);
            // a string goes to scanString, which knows its escapes.
            let start = position
            let (stop, newDepth) = buffer.withUnsafeBufferPointer { all -> (Int, Int) in
                var index = start, depth = depth
                while index < all.count {
                    switch all[index] {
                    case UInt8(ascii: "\""): return (index, depth)
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 { return (index + 1, 0) }
                    default: break
                    }
                    index += 1
                }
                return (index, depth)
            }
            depth = newDepth
            position = stop
            if depth == 0 { return }
            if position < buffer.count { try scanString() }
        }
        throw fail("the document ends inside an object or array")
    }

    private func scanString() throws(ImportError) {
        position += 1
        while try available() {
            let start = position
            let stop = buffer.withUnsafeBufferPointer { all -> Int in
                var index = start
                while index < all.count, all[index] != UInt8(ascii: "\""), all[index] != UInt8(ascii: "\\") { index += 1 }
                return index
            }
            position = stop
            guard position < buffer.count else { continue }
            if buffer[position] == UInt8(ascii: "\"") {
                position += 1
                return
            }
            position += 1  // the backslash, then the byte it escapes
            guard try available() else { break }
            position += 1
        }
        throw fail("the document ends inside a string")
    }
}
