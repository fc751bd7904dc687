import Foundation
import ImagePipeline
import Workloads

/// Reads a delimited text trace as a plain simulation trace. Lines starting with `#` are
/// comments. A first line that names its columns (`obj_size,time,obj_id`) places them
/// unless `--columns` did; a first line whose time or size field is not a number is
/// otherwise a header and skipped. Fields may be quoted ("a,b", with "" for a quote). A key that is a whole number is its own fingerprint, as in
/// `OracleGeneralTrace`, so a sketch hashes what libCacheSim hashes; other keys are
/// fingerprinted by their bytes. Gzip-compressed files are read as they are.
public enum DelimitedTrace {
    public static func read(_ path: String, format given: DelimitedTraceFormat, objects: Bool = false,
                            allowsEmpty: Bool = false) throws(TraceError) -> SimulationTrace {
        var whole = PlainTraceChunk()
        try scan(path, format: given, objects: objects, allowsEmpty: allowsEmpty, chunkRequests: .max) { whole = $0 }
        return whole.trace()
    }

    /// The trace's requests in chunks of `chunkRequests`, each handed to `publish` as soon as
    /// it is interned: what a `PlainTraceStream` reads. A malformed line ends the stream with
    /// its error at file:line, after the chunks before it.
    public static func stream(
        _ path: String, format given: DelimitedTraceFormat, objects: Bool = false, allowsEmpty: Bool = false,
        chunkRequests: Int = 1 << 16, publish: (PlainTraceChunk) -> Void
    ) throws(TraceError) {
        try scan(path, format: given, objects: objects, allowsEmpty: allowsEmpty, chunkRequests: chunkRequests, publish: publish)
    }

    private static func scan(
        _ path: String, format given: DelimitedTraceFormat, objects: Bool, allowsEmpty: Bool, chunkRequests: Int,
        publish: (PlainTraceChunk) -> Void
    ) throws(TraceError) {
        let lines = try LineReader(path: path)
        var columns = Columns(objects: objects, chunkRequests: chunkRequests)
        // A plain file's size bounds its requests: once a batch has shown the bytes a request
        // takes, the columns of a whole-trace read are sized for the whole file rather than
        // doubled as they fill (which left up to half of each unused: a third of the peak on a
        // large trace). A stream's chunks are sized for a chunk.
        let fileBytes = path.hasSuffix(".gz") || chunkRequests != .max
            ? 0 : ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0)
        var sampledBytes = 0
        // The current line's fields, in storage kept between lines: a line allocates nothing, and
        // the line's closure captures no variable (a captured array was checked for exclusive
        // access at every use). A mapping or header places columns up to `mostColumns`; a format
        // built in code may name more.
        let fields = UnsafeMutableBufferPointer<Field>.allocate(capacity: max(Self.mostColumns, given.key, given.time ?? 0, given.size ?? 0))
        defer { fields.deallocate() }
        var format = given
        var wanted = max(format.key, format.time ?? 0, format.size ?? 0)
        var first = true
        while let number = try lines.next() {
            let isComment = lines.withLine { line in line.first { $0 != 0x20 && $0 != 0x09 } == UInt8(ascii: "#") }
            if isComment { continue }
            if first, !format.columnsGiven, let delimiter = format.delimiter {
                let names = try lines.withLine { line throws(TraceError) in
                    try split(line, delimiter, wanted: mostColumns, path: path, line: number).map { $0.text(in: line) }
                }
                if let placed = try format.placed(byHeader: names, path: path, line: number) {
                    format = placed
                    wanted = max(format.key, format.time ?? 0, format.size ?? 0)
                    first = false
                    continue
                }
            }
            let isFirst = first
            first = false
            let record: Record? = try lines.withLine { [format, wanted, requests = columns.count] line throws(TraceError) in
                let found = try split(line, format.delimiter, wanted: wanted, into: fields, path: path, line: number)
                func field(_ column: Int) throws(TraceError) -> Field {
                    guard column >= 1 else {
                        throw .malformed(file: path, line: number, reason: "column \(column) is wanted; columns are numbered from 1")
                    }
                    guard column <= found else {
                        throw .malformed(file: path, line: number, reason: "\(found) fields, and column \(column) is wanted")
                    }
                    return fields[column - 1]
                }
                let time = try format.time.map { column throws(TraceError) in try field(column) }
                let size = try format.size.map { column throws(TraceError) in try field(column) }
                if isFirst, (time.map { !$0.isNumber(in: line) } ?? false) || (size.map { !$0.isNumber(in: line) } ?? false) {
                    return nil  // a header
                }
                let key = try field(format.key)
                let nanoseconds = try time.map { field throws(TraceError) in
                    try field.time(in: line, unit: format.timeUnit, path: path, line: number)
                } ?? UInt64(requests) * 1_000_000_000
                let bytes = try size.map { field throws(TraceError) in try field.size(in: line, path: path, line: number) } ?? 1
                guard key.range.count > 0 else {
                    throw .malformedField(file: path, line: number, column: key.range.lowerBound + 1, reason: "the key is empty")
                }
                if let id = key.wholeNumber(in: line) { return Record(key: .number(id), time: nanoseconds, size: bytes) }
                // A key that reads as a whole number otherwise ("+7") is that number too.
                let text = key.text(in: line)
                return Record(key: UInt64(text).map(Key.number) ?? .text(text), time: nanoseconds, size: bytes)
            }
            guard let record else { continue }
            if fileBytes > 0, columns.count < Columns.batch {
                sampledBytes += lines.withLine { $0.count } + 1
                if columns.count + 1 == Columns.batch { columns.reserve(fileBytes / 10 * 11 * Columns.batch / sampledBytes) }
            }
            columns.append(record)
            if columns.unpublished >= chunkRequests { publish(columns.takeChunk()) }
        }
        guard columns.count > 0 || allowsEmpty else {
            throw .malformed(file: path, line: lines.number, reason: "no requests (--allow-empty accepts an empty trace)")
        }
        if columns.unpublished > 0 { publish(columns.takeChunk()) }
    }

    /// The trace's columns as `OracleGeneralTrace` builds them (a request's cost and size are one
    /// weight), keys given slots in the order first seen. Requests wait in `pending` for their
    /// slots, interned a batch at a time, so the id table's line for a key can be asked for some
    /// requests before it is needed.
    private struct Columns {
        let objects: Bool
        let chunkRequests: Int
        /// Keys interned so far: the next new key's id.
        var keyCount = 0
        /// The interned requests since the last chunk was taken, and the keys they saw first.
        private(set) var chunk = PlainTraceChunk()
        var numericSlots = ObjectIdTable()
        var textSlots: [ByteExactString: TraceKey] = [:]
        var pending: [Record] = []
        static let batch = 4_096, prefetchDistance = 16

        init(objects: Bool, chunkRequests: Int) {
            self.objects = objects
            self.chunkRequests = chunkRequests
            if chunkRequests != .max { chunk.reserve(chunkRequests) }
        }

        /// Requests read, in every chunk.
        private(set) var count = 0
        /// Requests read since the last chunk was taken, interned or not.
        var unpublished: Int { chunk.count + pending.count }

        mutating func reserve(_ requests: Int) { chunk.reserve(requests) }

        mutating func append(_ record: Record) {
            pending.append(record)
            count += 1
            if pending.count == Self.batch { internPending() }
        }

        /// Every request read since the last call, and a fresh chunk for the next ones.
        mutating func takeChunk() -> PlainTraceChunk {
            internPending()
            var taken = PlainTraceChunk()
            swap(&taken, &chunk)
            if chunkRequests != .max { chunk.reserve(chunkRequests) }
            return taken
        }

        private mutating func internPending() {
            for index in pending.indices {
                if index &+ Self.prefetchDistance < pending.count, case .number(let id) = pending[index &+ Self.prefetchDistance].key {
                    numericSlots.prefetch(id)
                }
                let slot: TraceKey
                switch pending[index].key {
                case .number(let id):
                    let (interned, isNew) = numericSlots.intern(id, next: TraceKey(keyCount))
                    if isNew {
                        chunk.newFingerprints.append(id)
                        keyCount += 1
                    }
                    slot = interned
                case .text(let text):
                    if let known = textSlots[ByteExactString(text)] { slot = known } else {
                        slot = TraceKey(keyCount)
                        chunk.newFingerprints.append(text.cacheFingerprint)
                        keyCount += 1
                        textSlots[ByteExactString(text)] = slot
                    }
                }
                chunk.keys.append(slot)
                chunk.weights.append(objects ? 1 : pending[index].size)
                chunk.times.append(pending[index].time)
            }
            pending.removeAll(keepingCapacity: true)
        }
    }

    private enum Key {
        /// A whole number: its own fingerprint.
        case number(UInt64)
        case text(String)
    }

    private struct Record {
        var key: Key
        var time: UInt64
        var size: Int
    }

    /// A field's bytes within its line, without quotes; `escaped` when it held "".
    struct Field {
        var range: Range<Int>
        var escaped = false

        func text(in line: UnsafeBufferPointer<UInt8>) -> String {
            let text = String(decoding: UnsafeBufferPointer(rebasing: line[range]), as: UTF8.self)
            return escaped ? text.replacingOccurrences(of: "\"\"", with: "\"") : text
        }

        /// The field as a whole number when it is ASCII digits only (around them spaces and tabs
        /// too, when `trimming`) and fits 64 bits; otherwise nil, and the general reading below
        /// decides. Most fields of a large trace are such numbers: they make no string.
        @inline(__always)
        func wholeNumber(in line: UnsafeBufferPointer<UInt8>, trimming: Bool = false) -> UInt64? {
            guard !escaped else { return nil }
            var lower = range.lowerBound, upper = range.upperBound
            if trimming {
                while lower < upper, line[lower] == 0x20 || line[lower] == 0x09 { lower += 1 }
                while upper > lower, line[upper - 1] == 0x20 || line[upper - 1] == 0x09 { upper -= 1 }
            }
            guard lower < upper else { return nil }
            return DecimalDigits.value(line, lower..<upper)
        }

        func isNumber(in line: UnsafeBufferPointer<UInt8>) -> Bool {
            Double(text(in: line).trimmingCharacters(in: .whitespaces)) != nil
        }

        func time(in line: UnsafeBufferPointer<UInt8>, unit: DelimitedTraceFormat.TimeUnit, path: String, line number: Int)
            throws(TraceError) -> UInt64 {
            if let whole = wholeNumber(in: line, trimming: true), whole < (1 << 63) / UInt64(unit.nanoseconds) {
                return whole * UInt64(unit.nanoseconds)
            }
            let text = text(in: line).trimmingCharacters(in: .whitespaces)
            // Up to 2^63 ns (292 years), so no arithmetic on times downstream can overflow.
            if let whole = UInt64(text), whole < (1 << 63) / UInt64(unit.nanoseconds) { return whole * UInt64(unit.nanoseconds) }
            guard let value = Double(text), value.isFinite, value >= 0, value * unit.nanoseconds < 0x1p63 else {
                throw .malformedField(file: path, line: number, column: range.lowerBound + 1,
                                      reason: "time \"\(text)\" is not a number of \(unit.rawValue) from 0 to 292 years")
            }
            return UInt64(value * unit.nanoseconds)
        }

        func size(in line: UnsafeBufferPointer<UInt8>, path: String, line number: Int) throws(TraceError) -> Int {
            if let whole = wholeNumber(in: line, trimming: true), whole <= 1 << 40 { return Int(whole) }
            let text = text(in: line).trimmingCharacters(in: .whitespaces)
            guard let bytes = Int(text), bytes >= 0, bytes <= 1 << 40 else {
                throw .malformedField(file: path, line: number, column: range.lowerBound + 1,
                                      reason: "size \"\(text)\" is not a whole number of bytes from 0 to 1 TiB")
            }
            return bytes
        }
    }

    /// The first `wanted` fields of a line (all of it, without a delimiter).
    static func split(_ line: UnsafeBufferPointer<UInt8>, _ delimiter: UInt8?, wanted: Int, path: String, line number: Int)
        throws(TraceError) -> [Field] {
        let fields = UnsafeMutableBufferPointer<Field>.allocate(capacity: wanted)
        defer { fields.deallocate() }
        let found = try split(line, delimiter, wanted: wanted, into: fields, path: path, line: number)
        return Array(fields[..<found])
    }

    /// The most columns a trace's mapping or header may place.
    static let mostColumns = 1_000

    /// Puts the first `wanted` fields of a line (at most `fields.count`) at the start of `fields`;
    /// returns how many there are.
    static func split(
        _ line: UnsafeBufferPointer<UInt8>, _ delimiter: UInt8?, wanted: Int, into fields: UnsafeMutableBufferPointer<Field>,
        path: String, line number: Int
    ) throws(TraceError) -> Int {
        precondition(wanted <= fields.count, "room for the fields wanted")
        guard let delimiter else {
            fields[0] = Field(range: 0..<line.count)
            return 1
        }
        var found = 0
        func add(_ field: Field) {
            fields[found] = field
            found += 1
        }
        var index = 0
        while found < wanted {
            if index < line.count, line[index] == UInt8(ascii: "\"") {
                let start = index + 1
                var cursor = start, escaped = false
                while true {
                    guard cursor < line.count else {
                        throw .malformedField(file: path, line: number, column: index + 1, reason: "a quoted field without its closing quote")
                    }
                    if line[cursor] == UInt8(ascii: "\"") {
                        if cursor + 1 < line.count, line[cursor + 1] == UInt8(ascii: "\"") {
                            escaped = true
                            cursor += 2
                            continue
                        }
                        break
                    }
                    cursor += 1
                }
                add(Field(range: start..<cursor, escaped: escaped))
                index = cursor + 1
                guard index == line.count || line[index] == delimiter else {
                    throw .malformedField(file: path, line: number, column: index + 1, reason: "text after a quoted field's closing quote")
                }
            } else {
                var end = index
                while end < line.count, line[end] != delimiter { end += 1 }
                add(Field(range: index..<end))
                index = end
            }
            guard index < line.count else { break }
            index += 1  // the delimiter
        }
        return found
    }
}
