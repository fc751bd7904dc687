import ImagePipeline
import Workloads
import Foundation
@_spi(Simulation) import CacheEngine
#if canImport(Glibc)
import Glibc
#endif

/// The compact binary form of a plain `SimulationTrace` (`.icbt`), for traces
/// of millions of requests where parsing JSON would dominate. Keys are already
/// interned, and the file is columnar, so reading is a few large `read` calls
/// straight into the simulator's arrays.
///
/// Layout, little-endian: magic `ICBT`, u32 version (1), u64 request count,
/// u64 key count; then the columns: fingerprints (u64 × keys), keys (i32 ×
/// requests), costs (u32), sizes (u32), times (u64 nanoseconds).
public enum SimulationTraceFile {
    public static let version: UInt32 = 1
    static let magic: [UInt8] = Array("ICBT".utf8)

    public enum FileError: Error, Equatable, CustomStringConvertible {
        case io(path: String, reason: String)
        case malformed(path: String, reason: String)
        /// The trace holds what the binary form cannot: it is refused rather than cut.
        case unrepresentable(path: String, reason: String)

        public var description: String {
            switch self {
            case .io(let path, let reason): "\(path): \(reason)"
            case .malformed(let path, let reason): "\(path): not a binary simulation trace (\(reason))"
            case .unrepresentable(let path, let reason): "\(path): not written: \(reason)"
            }
        }
    }

    /// Whether a file starts like a binary trace.
    public static func isBinaryTrace(_ path: String) -> Bool {
        if path.hasSuffix(".icbt") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)).map { Array($0) == magic } ?? false
    }

    public static func write(_ trace: SimulationTrace, to path: String) throws(FileError) {
        precondition(!trace.hasDetails, "the binary form holds plain traces")
        // Costs and sizes are 32-bit columns: a larger one would be cut silently.
        if let request = trace.costs.indices.first(where: { trace.costs[$0] > UInt32.max || trace.sizes[$0] > UInt32.max }) {
            throw .unrepresentable(path: path, reason: "request \(request + 1) costs \(trace.costs[request]) and weighs \(trace.sizes[request]) bytes, "
                + "over the 4 GiB (32 bits) the binary form holds; keep the trace in the format it came in")
        }
        let output = OutputFile(path)
        guard let file = fopen(output.writingPath, "wb") else { throw .io(path: path, reason: "cannot open for writing") }
        do {
            try writeContents(of: trace, to: file, path: path)
        } catch {
            fclose(file)
            output.discard()
            throw error
        }
        guard fclose(file) == 0 else {
            output.discard()
            throw .io(path: path, reason: "write failed (\(FileSystemError.reason(errno)))")
        }
        do { try output.commit() } catch { throw .io(path: path, reason: error.description) }
    }

    private static func writeContents(of trace: SimulationTrace, to file: UnsafeMutablePointer<FILE>, path: String) throws(FileError) {
        func put<T>(_ values: [T]) throws(FileError) {
            let written = values.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            guard written == values.count * MemoryLayout<T>.stride else { throw .io(path: path, reason: "write failed") }
        }
        try put(magic)
        try put([version.littleEndian])
        try put([UInt64(trace.count).littleEndian, UInt64(trace.keyCount).littleEndian])
        try put(trace.fingerprints.map(\.littleEndian))
        try put(trace.keys.map(\.littleEndian))
        try put(trace.costs.map { UInt32($0).littleEndian })
        try put(trace.sizes.map { UInt32($0).littleEndian })
        try put(trace.times.map(\.littleEndian))
    }

    public static func read(_ path: String) throws(FileError) -> SimulationTrace {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw .io(path: path, reason: "cannot open for reading") }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_size == 0 {
            throw .malformed(path: path, reason: "an empty file; a binary trace starts with ICBT and a 24-byte header (synth-trace writes one)")
        }
        var header = [UInt8](repeating: 0, count: 24)
        try fill(&header, descriptor, path)
        guard Array(header[0..<4]) == magic else { throw .malformed(path: path, reason: "wrong magic") }
        let (found, requests, keys) = header.withUnsafeBytes {
            ($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self).littleEndian,
             Int($0.loadUnaligned(fromByteOffset: 8, as: UInt64.self).littleEndian),
             Int($0.loadUnaligned(fromByteOffset: 16, as: UInt64.self).littleEndian))
        }
        guard found == version else { throw .malformed(path: path, reason: "version \(found), this reader knows \(version)") }
        guard fstat(descriptor, &status) == 0, requests >= 0, keys >= 0, keys <= Int(Int32.max),
              Int(status.st_size) == 24 + keys * 8 + requests * (4 + 4 + 4 + 8) else {
            throw .malformed(path: path, reason: "its size does not match \(requests) requests and \(keys) keys")
        }
        var trace = SimulationTrace()
        // Read at random, once per miss: see `inHugePages`.
        var fingerprints = [UInt64].inHugePages(count: keys, filledWith: 0)
        try fill(&fingerprints, descriptor, path)
        var slots = [TraceKey](repeating: 0, count: requests)
        try fill(&slots, descriptor, path)
        var narrow = [UInt32](repeating: 0, count: requests)
        try fill(&narrow, descriptor, path)
        let costs = narrow.map { Int(UInt32(littleEndian: $0)) }
        try fill(&narrow, descriptor, path)
        let sizes = narrow.map { Int(UInt32(littleEndian: $0)) }
        var times = [UInt64](repeating: 0, count: requests)
        try fill(&times, descriptor, path)
        #if _endian(big)
        fingerprints = fingerprints.map { UInt64(littleEndian: $0) }
        slots = slots.map { TraceKey(littleEndian: $0) }
        times = times.map { UInt64(littleEndian: $0) }
        #endif
        guard slots.allSatisfy({ $0 >= 0 && Int($0) < keys }) else {
            throw .malformed(path: path, reason: "a request names a key beyond the \(keys) keys")
        }
        trace.load(fingerprints: fingerprints, keys: slots, costs: costs, sizes: sizes, times: times)
        return trace
    }

    /// Reads exactly the array's bytes.
    private static func fill<T>(_ values: inout [T], _ descriptor: Int32, _ path: String) throws(FileError) {
        let wanted = values.count * MemoryLayout<T>.stride
        let got = values.withUnsafeMutableBytes { buffer -> Int in
            var offset = 0
            while offset < wanted {
                let count = Glibc.read(descriptor, buffer.baseAddress! + offset, wanted - offset)
                if count <= 0 { break }
                offset += count
            }
            return offset
        }
        guard got == wanted else { throw .malformed(path: path, reason: "it ends early") }
    }
}
