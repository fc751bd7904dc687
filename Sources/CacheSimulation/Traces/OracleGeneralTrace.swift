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

    /// Whether a path names an oracleGeneral trace (libCacheSim's file names end so).
    public static func isOracleGeneral(_ path: String) -> Bool {
        path.hasSuffix(".oracleGeneral") || path.hasSuffix(".oracleGeneral.bin")
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
