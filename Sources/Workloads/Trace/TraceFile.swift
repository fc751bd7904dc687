import CZlib
import Foundation
import ImagePipeline

/// Why a trace could not be read or written, with the place: `file:line: what is wrong`.
public enum TraceError: Error, Equatable, CustomStringConvertible {
    case malformed(file: String, line: Int, reason: String)
    case missingHeader(file: String)
    case unsupportedSchema(file: String, found: Int, supported: Int)
    case io(file: String, reason: String)
    /// A field of a delimited (CSV, TSV) trace: the column is the field's first byte, from 1.
    case malformedField(file: String, line: Int, column: Int, reason: String)

    public var description: String {
        switch self {
        case .malformed(let file, let line, let reason): "\(file):\(line): \(reason)"
        case .malformedField(let file, let line, let column, let reason): "\(file):\(line):\(column): \(reason)"
        case .missingHeader(let file): "\(file):1: the first line must be the trace header"
        case .unsupportedSchema(let file, let found, let supported):
            "\(file):1: trace schema \(found) is not supported (this reader knows \(supported))"
        case .io(let file, let reason): "\(file): \(reason)"
        }
    }
}

/// Reads a trace one line at a time in fixed-size chunks, so a file of
/// millions of events is read in bounded memory. Event lines are decoded by
/// `TraceLineDecoder` straight from the read buffer; the header by `JSONDecoder`.
public struct TraceReader {
    public let path: String
    public let header: TraceHeader
    /// Whether a trace with no events is accepted (asked for with `--allow-empty`).
    public let allowsEmpty: Bool
    private let lines: LineReader
    private var events = 0
    private var sessions = 0
    private var order = TraceOrder()

    public init(path: String, allowsEmpty: Bool = false) throws(TraceError) {
        self.path = path
        self.allowsEmpty = allowsEmpty
        lines = try LineReader(path: path)
        guard let number = try lines.next() else { throw .malformed(file: path, line: 1, reason: "an empty file: a trace starts with its header line") }
        let line = lines.withLine { Data($0) }
        if line.starts(with: "ICBT".utf8) {
            throw .io(file: path, reason: "a binary simulation trace (.icbt), which simulate, sweep and stats read; this command reads JSON Lines traces (.jsonl, .jsonl.gz)")
        }
        if line.contains(UInt8(ascii: "\r")) {
            throw .malformed(file: path, line: number, reason: "lines end in a carriage return alone; a trace's lines end in LF or CRLF (convert with `tr '\\r' '\\n'`)")
        }
        let header: TraceHeader
        do {
            header = try JSONDecoder().decode(TraceHeader.self, from: line)
        } catch {
            // A line that names the header's fields is a header with a wrong field: say which.
            let isHeader = (try? JSONSerialization.jsonObject(with: line) as? [String: Any])?.keys.contains("schema") ?? false
            guard number == 1 || isHeader else { throw .malformed(file: path, line: number, reason: PlainFailure.clause(error)) }
            guard isHeader else { throw .missingHeader(file: path) }
            throw .malformed(file: path, line: number, reason: "the trace header's " + PlainFailure.clause(error))
        }
        guard header.schema == TraceHeader.currentSchema else {
            throw .unsupportedSchema(file: path, found: header.schema, supported: TraceHeader.currentSchema)
        }
        self.header = header
    }

    /// The number of the line the last event came from.
    public var line: Int { lines.number }

    /// The next event, or nil at the end of the file. At the end, the file must
    /// have had events, and as many sessions as its header says (a cut or
    /// concatenated file shows there).
    public mutating func next() throws(TraceError) -> TraceEvent? {
        guard let number = try lines.next() else {
            guard events > 0 || allowsEmpty else {
                throw .malformed(file: path, line: lines.number, reason: "no events after the header: an empty trace (--allow-empty accepts it)")
            }
            guard sessions == header.sessions else {
                throw .malformed(file: path, line: lines.number,
                                 reason: "the header says \(header.sessions) sessions, the file has \(sessions)")
            }
            return nil
        }
        let event: TraceEvent
        do {
            event = try lines.withLine { line throws(JSONLineError) in try TraceLineDecoder.event(from: line) }
        } catch {
            throw .malformed(file: path, line: number, reason: error.reason)
        }
        if let problem = order.admit(event) { throw .malformed(file: path, line: number, reason: problem) }
        events += 1
        if case .session = event.kind { sessions += 1 }
        return event
    }

    /// Every remaining event (for small traces and tests).
    public mutating func readAll() throws(TraceError) -> [TraceEvent] {
        var events: [TraceEvent] = []
        while let event = try next() { events.append(event) }
        return events
    }
}

/// Splits a file into lines, reading 64 KB at a time; skips blank lines,
/// tolerates CRLF, and numbers lines from 1. Gzip-compressed files are
/// inflated on the fly (zlib reads plain files unchanged). A line is handed
/// out as bytes in the read buffer, valid until the next line is read.
public final class LineReader {
    private let file: gzFile
    private let path: String
    // Unchecked: a reader is not Sendable and its lines are read one at a time; the dynamic exclusivity
    // checks of a class's properties took a tenth of reading a large trace.
    @exclusivity(unchecked) @usableFromInline var buffer: [UInt8] = []
    /// What one read fills; its bytes are appended to `buffer` in one copy.
    @exclusivity(unchecked) private var chunk = [UInt8](repeating: 0, count: 64 << 10)
    @exclusivity(unchecked) private var start = 0
    /// Where the current line lies in `buffer`.
    @exclusivity(unchecked) @usableFromInline var current = 0..<0
    /// The number of the current line, from 1.
    @exclusivity(unchecked) public private(set) var number = 0
    @exclusivity(unchecked) private var atEnd = false
    /// Far beyond any event (they take a few hundred bytes), and it keeps a file without
    /// line ends from filling memory.
    static let maximumLineBytes = 16 << 20

    public init(path: String) throws(TraceError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
            throw .io(file: path, reason: "a folder, not a trace file")
        }
        guard FileManager.default.isReadableFile(atPath: path), let file = gzopen(path, "rb") else {
            throw .io(file: path, reason: "cannot open for reading")
        }
        self.file = file
        self.path = path
    }

    deinit { gzclose(file) }

    /// Moves to the next line that is not blank and returns its number, or nil at the end.
    public func next() throws(TraceError) -> Int? {
        while true {
            let newline = buffer.withUnsafeBufferPointer { all in
                all.baseAddress.flatMap { base in
                    memchr(base + start, Int32(UInt8(ascii: "\n")), all.count - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
                }
            }
            if let newline {
                number += 1
                current = start..<newline
                start = newline + 1
                if isBlank(current) { continue }
                return number
            }
            guard buffer.count - start <= Self.maximumLineBytes else {
                throw .malformed(file: path, line: number + 1, reason: "a line longer than \(Self.maximumLineBytes >> 20) MiB")
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                number += 1
                current = start..<buffer.count
                start = buffer.count
                return isBlank(current) ? nil : number
            }
            buffer.removeFirst(start)
            start = 0
            try fill()
        }
    }

    /// The current line's bytes, without its line end. Inlinable: called once a line, with a
    /// closure the caller's module can then inline.
    @inlinable
    public func withLine<Result, Failure>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        var line = current
        if line.count > 0, buffer[line.upperBound - 1] == UInt8(ascii: "\r") { line = line.lowerBound..<line.upperBound - 1 }
        return try buffer.withUnsafeBufferPointer { all throws(Failure) in try body(UnsafeBufferPointer(rebasing: all[line])) }
    }

    /// Whitespace only (as JSON and the old text reader counted it).
    private func isBlank(_ line: Range<Int>) -> Bool {
        buffer[line].allSatisfy { $0 == 0x20 || (0x09...0x0D).contains($0) }
    }

    private func fill() throws(TraceError) {
        let read = chunk.withUnsafeMutableBytes { gzread(file, $0.baseAddress!, UInt32($0.count)) }
        guard read >= 0 else {
            var code: Int32 = 0
            let message = gzerror(file, &code).map { String(cString: $0) } ?? "read failed"
            throw .io(file: path, reason: "damaged compressed data after line \(number) (\(message))")
        }
        buffer.append(contentsOf: chunk[..<Int(read)])
        guard read == 0 else { return }
        // zlib hands out what a cut stream held, then reports the cut at its end.
        var code: Int32 = Z_OK
        let message = gzerror(file, &code).map { String(cString: $0) } ?? ""
        if code == Z_BUF_ERROR { throw .io(file: path, reason: "compressed data cut short after line \(number) (a truncated .gz)") }
        if code != Z_OK { throw .io(file: path, reason: "damaged compressed data after line \(number) (\(message))") }
        atEnd = true
    }
}

/// Writes a trace: the header, then one event per line, buffered.
/// A path ending in `.gz` is written gzip-compressed (deterministically: no
/// name or time in the gzip header). The trace appears at `path` only when
/// `close()` has written all of it (see `OutputFile`): a writer dropped before
/// then, or a process killed, leaves nothing that reads as a whole trace.
public final class TraceWriter {
    public let path: String
    private let output: OutputFile
    private let file: gzFile
    private var closed = false
    private var pending: [UInt8] = []
    private var lines = TraceLineEncoder()
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public init(path: String, header: TraceHeader) throws(TraceError) {
        self.path = path
        output = OutputFile(path)
        guard let file = gzopen(output.writingPath, path.hasSuffix(".gz") ? "wb9" : "wbT") else {
            throw .io(file: path, reason: "cannot create (\(FileSystemError.reason(errno)))")
        }
        self.file = file
        try write(header)
    }

    deinit {
        guard !closed else { return }
        gzclose(file)
        output.discard()
    }

    public func append(_ event: TraceEvent) throws(TraceError) {
        do { try lines.append(event, to: &pending) } catch { throw .io(file: path, reason: "\(PlainFailure.clause(error))") }
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 64 << 10 { try flush() }
    }

    /// Writes what is buffered and closes the file.
    public func close() throws(TraceError) {
        try flush()
        closed = true
        guard gzclose(file) == Z_OK else {
            output.discard()
            throw .io(file: path, reason: "could not finish writing (disk full?)")
        }
        try output.commit()
    }

    private func write(_ value: some Encodable) throws(TraceError) {
        do { pending.append(contentsOf: try encoder.encode(value)) } catch { throw .io(file: path, reason: "\(PlainFailure.clause(error))") }
        pending.append(UInt8(ascii: "\n"))
    }

    private func flush() throws(TraceError) {
        let written = pending.withUnsafeBytes { gzwrite(file, $0.baseAddress, UInt32($0.count)) }
        guard written == pending.count else { throw .io(file: path, reason: "write failed (disk full?)") }
        pending.removeAll(keepingCapacity: true)
    }
}
