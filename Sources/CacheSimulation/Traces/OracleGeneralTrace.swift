import Foundation
import ImagePipeline

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
    /// weighs 1 (libCacheSim's `ignore_obj_size`): capacities count objects.
    public static func read(_ path: String, objects: Bool) throws(SimulationTraceFile.FileError) -> SimulationTrace {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw .io(path: path, reason: "cannot read (\(error.localizedDescription))")
        }
        guard data.count % recordSize == 0 else {
            throw .malformed(path: path, reason: "\(data.count) bytes is not a whole number of \(recordSize)-byte records; "
                + "record \(data.count / recordSize + 1) is cut short")
        }
        var trace = SimulationTrace()
        var slots: [UInt64: Slot] = [:]
        let requests = data.count / recordSize
        trace.reserveCapacity(requests)
        data.withUnsafeBytes { bytes in
            for record in 0..<requests {
                let offset = record * recordSize
                let seconds = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
                let object = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt64.self).littleEndian
                let size = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self).littleEndian)
                let slot: Slot
                if let known = slots[object] {
                    slot = known
                } else {
                    // The object id is already a unique integer: it is its own fingerprint, so a
                    // sketch that hashes fingerprints hashes what libCacheSim hashes.
                    slot = trace.addKey(fingerprint: object)
                    slots[object] = slot
                }
                let weight = objects ? 1 : size
                trace.append(key: slot, cost: weight, size: weight, time: UInt64(seconds) * 1_000_000_000)
            }
        }
        return trace
    }
}
