import Foundation
import ImagePipeline
import Workloads
@_spi(Simulation) import CacheEngine

/// Reads libCacheSim's `oracleGeneral` binary traces (what `export` writes,
/// and the format of most public cache traces) as plain simulation traces, so
/// the simulator and libCacheSim run the very same requests.
///
/// A record is 24 bytes, little-endian: u32 time in seconds, u64 object id,
/// u32 size, i64 next access (ignored here).
public enum OracleGeneralTrace {
    static let recordSize = 24

    /// Whether a file is an oracleGeneral trace: named so (libCacheSim's file names end
    /// `.oracleGeneral`), or, whatever its name (`.og`, `.bin`), holding whole records whose first
    /// ones read as requests: times that never go back, sizes above 0, a next access of -1 or later.
    public static func isOracleGeneral(_ path: String) -> Bool {
        if path.hasSuffix(".oracleGeneral") || path.hasSuffix(".oracleGeneral.bin") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0, size % UInt64(recordSize) == 0,
              (try? handle.seek(toOffset: 0)) != nil, let head = try? handle.read(upToCount: 64 * recordSize) else { return false }
        return looksLikeRecords(Array(head))
    }

    static func looksLikeRecords(_ bytes: [UInt8]) -> Bool {
        let records = bytes.count / recordSize
        // Another format's magic: gzip (a compressed trace), this project's binary traces and orders.
        let magic = Array(bytes.prefix(4))
        guard !magic.starts(with: [0x1F, 0x8B]), magic != Array("ICBT".utf8), magic != Array("ICBO".utf8) else { return false }
        guard records > 0, !bytes.prefix(records * recordSize).allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) else {
            return false
        }
        func load<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
            bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        }
        var previous: UInt32 = 0
        for record in 0..<records {
            let base = record * recordSize
            let time = load(base, as: UInt32.self), size = load(base + 12, as: UInt32.self), next = load(base + 16, as: Int64.self)
            guard time >= previous, size > 0, next >= -1 else { return false }
            previous = time
        }
        return true
    }

    /// The trace's requests in order. In `objects` mode every object costs and
    /// weighs 1 (libCacheSim's `ignore_obj_size`): capacities count objects. Read a
    /// block at a time (a pipe too), so only the trace's columns stay in memory.
    public static func read(_ path: String, objects: Bool, allowsEmpty: Bool = false) throws(SimulationTraceFile.FileError) -> SimulationTrace {
        var whole = PlainTraceChunk()
        try scan(path, objects: objects, allowsEmpty: allowsEmpty, chunkRequests: .max) { whole = $0 }
        return whole.trace()
    }

    /// The trace's requests in chunks of `chunkRequests` (the last one shorter), each handed to
    /// `publish` as soon as it is interned: what a `PlainTraceStream` reads.
    public static func stream(
        _ path: String, objects: Bool, allowsEmpty: Bool = false, chunkRequests: Int = 1 << 17, publish: (PlainTraceChunk) -> Void
    ) throws(SimulationTraceFile.FileError) {
        try scan(path, objects: objects, allowsEmpty: allowsEmpty, chunkRequests: chunkRequests, publish: publish)
    }

    /// An empty file is refused unless `allowsEmpty`, as an empty recorded or delimited trace is:
    /// it is usually a cut or failed export, and its figures would read as real.
    private static func scan(
        _ path: String, objects: Bool, allowsEmpty: Bool, chunkRequests: Int, publish: (PlainTraceChunk) -> Void
    ) throws(SimulationTraceFile.FileError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(path: path, reason: "cannot read (no such file, or no permission)")
        }
        defer { try? handle.close() }
        let expected = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        // A whole-trace read (`chunkRequests` .max) publishes once, at the end, after the check below.
        var reader = Reader(expectedRequests: expected / recordSize, objects: objects, chunkRequests: chunkRequests)
        while true {
            let block: Data
            do { block = try handle.read(upToCount: recordSize * min(1 << 17, chunkRequests)) ?? Data() } catch {
                throw .io(path: path, reason: "cannot read (\(PlainFailure.clause(error)))")
            }
            if block.isEmpty { break }
            reader.feed(block)
            if reader.chunk.count >= chunkRequests { publish(reader.takeChunk()) }
        }
        guard reader.bytesRead > 0 || allowsEmpty else {
            throw .io(path: path, reason: "an empty file, no requests: usually a cut or failed export (--allow-empty accepts it)")
        }
        guard reader.isAtRecordBoundary else {
            throw .malformed(path: path, reason: "\(reader.bytesRead) bytes is not a whole number of \(recordSize)-byte records; "
                + "record \(reader.bytesRead / recordSize + 1) is cut short")
        }
        if reader.chunk.count > 0 { publish(reader.takeChunk()) }
    }

    /// The trace's columns as blocks of bytes arrive, whatever their lengths (a read may end
    /// inside a record), object ids interned to dense slots.
    struct Reader {
        let objects: Bool
        let chunkRequests: Int
        static let prefetchDistance = 16
        /// The start of a record the last block cut short.
        private var carried: [UInt8] = []
        private(set) var bytesRead = 0
        var table: ObjectIdTable
        /// Keys interned so far: the next new key's id.
        private(set) var keyCount = 0
        /// The requests since the last chunk was taken, and the keys they saw first.
        private(set) var chunk = PlainTraceChunk()

        init(expectedRequests: Int, objects: Bool, chunkRequests: Int = .max) {
            self.objects = objects
            self.chunkRequests = chunkRequests
            table = ObjectIdTable(expected: max(expectedRequests / 8, 1 << 16))
            chunk.reserve(min(expectedRequests, chunkRequests))
        }

        var isAtRecordBoundary: Bool { carried.isEmpty }

        /// The requests read since the last call, and a fresh chunk for the next ones.
        mutating func takeChunk() -> PlainTraceChunk {
            var taken = PlainTraceChunk()
            swap(&taken, &chunk)
            if chunkRequests != .max { chunk.reserve(chunkRequests) }
            return taken
        }

        /// The whole trace read so far (tests).
        mutating func trace() -> SimulationTrace { takeChunk().trace() }

        mutating func feed(_ block: Data) {
            bytesRead += block.count
            var block = block[...]
            if !carried.isEmpty {
                let missing = min(OracleGeneralTrace.recordSize - carried.count, block.count)
                carried.append(contentsOf: block.prefix(missing))
                block = block.dropFirst(missing)
                guard carried.count == OracleGeneralTrace.recordSize else { return }
                let record = carried
                _ = record.withUnsafeBytes { append(records: $0) }
                carried.removeAll(keepingCapacity: true)
            }
            let used = block.withUnsafeBytes { append(records: $0) }
            carried.append(contentsOf: block.suffix(block.count - used))
        }

        /// Appends the whole records at the start of `bytes`; returns the bytes they took.
        private mutating func append(records bytes: UnsafeRawBufferPointer) -> Int {
            let records = bytes.count / OracleGeneralTrace.recordSize
            for record in 0..<records {
                let offset = record * OracleGeneralTrace.recordSize
                // An id's entry is usually far from the last one's: ask for it some records early.
                if record &+ Self.prefetchDistance < records {
                    table.prefetch(bytes.loadUnaligned(
                        fromByteOffset: offset &+ Self.prefetchDistance &* OracleGeneralTrace.recordSize &+ 4, as: UInt64.self).littleEndian)
                }
                let seconds = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
                let object = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self).littleEndian
                let size = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self).littleEndian)
                let (slot, isNew) = table.intern(object, next: TraceKey(keyCount))
                // The object id is already a unique integer: it is its own fingerprint, so a
                // sketch that hashes fingerprints hashes what libCacheSim hashes.
                if isNew {
                    chunk.newFingerprints.append(object)
                    keyCount += 1
                }
                chunk.keys.append(slot)
                chunk.weights.append(objects ? 1 : size)
                chunk.times.append(UInt64(seconds) * 1_000_000_000)
            }
            return records * OracleGeneralTrace.recordSize
        }
    }
}
