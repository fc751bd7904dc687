import Foundation
import ImagePipeline
import Workloads

/// An `ObservedOrder` on disk (`.icbo`), as `replay --save-order` writes it and
/// `simulate --observed-order` reads it, so a live run's interleaving can be simulated again
/// under the same configuration (or checked after a change to the simulator).
///
/// Layout, little-endian: magic `ICBO`, u32 version (2; 1 is read too), u64 requests of the
/// replayed trace, u64 steps; then 16 bytes a step: i32 the request (or the event's index), u8
/// the decision's raw value (`PipelineDecision`), 255 for an event or 254 for the device's step,
/// a byte (the device's step: `ObservedOrder.DeviceStep`, otherwise 0), two zero bytes, u64 the
/// bytes a disk store took (0 otherwise).
public enum ObservedOrderFile {
    public static let version: UInt32 = 2
    static let magic = Data("ICBO".utf8)
    static let eventKind: UInt8 = 255
    static let deviceKind: UInt8 = 254
    static let stepSize = 16

    public static func write(_ order: ObservedOrder, requests: Int, to path: String) throws(SimulationTraceFile.FileError) {
        var data = Data(capacity: 24 + order.count * stepSize)
        data.append(magic)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        put(version)
        put(UInt64(requests))
        put(UInt64(order.count))
        for step in order.steps {
            switch step {
            case .decision(let decision, let request, let bytes):
                put(request)
                put(decision.rawValue)
                put(UInt8(0)); put(UInt16(0))
                put(UInt64(max(bytes, 0)))
            case .event(let index):
                put(index)
                put(eventKind)
                put(UInt8(0)); put(UInt16(0))
                put(UInt64(0))
            case .device(let step, let request):
                put(request)
                put(deviceKind)
                put(step.rawValue); put(UInt16(0))
                put(UInt64(0))
            }
        }
        do { try OutputFile.write(data, to: path) } catch { throw .io(path: path, reason: error.description) }
    }

    /// The order and the number of requests of the trace it was observed on.
    public static func read(_ path: String) throws(SimulationTraceFile.FileError) -> (order: ObservedOrder, requests: Int) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, reason: "cannot read (\(PlainFailure.clause(error)))")
        }
        guard data.count >= 24, data.prefix(4) == magic else { throw .malformed(path: path, reason: "not an observed order: no ICBO header") }
        let parsed = data.withUnsafeBytes { bytes in parse(bytes, count: data.count, path: path) }
        return try parsed.get()
    }

    private static func parse(
        _ bytes: UnsafeRawBufferPointer, count size: Int, path: String
    ) -> Result<(order: ObservedOrder, requests: Int), SimulationTraceFile.FileError> {
        Result { () throws(SimulationTraceFile.FileError) in
            let found = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            guard found == version || found == 1 else { throw .malformed(path: path, reason: "version \(found), this reader knows 1 and \(version)") }
            let requests = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            let count = Int(UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
            guard requests >= 0, requests <= Int(Int32.max), count >= 0, count <= (size - 24) / stepSize, size == 24 + count * stepSize else {
                throw .malformed(path: path, reason: "its size does not match \(count) steps")
            }
            var steps: [ObservedOrder.Step] = []
            steps.reserveCapacity(count)
            for index in 0..<count {
                let offset = 24 + index * stepSize
                let value = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self))
                let kind = bytes[offset + 4]
                if kind == eventKind {
                    guard value >= 0 else { throw .malformed(path: path, reason: "step \(index + 1) names event \(value)") }
                    steps.append(.event(value))
                } else if kind == deviceKind {
                    guard let step = ObservedOrder.DeviceStep(rawValue: bytes[offset + 5]), value >= 0, Int(value) < requests else {
                        throw .malformed(path: path, reason: "step \(index + 1) is not a device step on one of \(requests) requests")
                    }
                    steps.append(.device(step, request: value))
                } else if let decision = PipelineDecision(rawValue: kind) {
                    let lowest: Int32 = decision == .diskTrimmed ? -1 : 0
                    guard value >= lowest, Int(value) < requests else {
                        throw .malformed(path: path, reason: "step \(index + 1) names request \(value) of \(requests)")
                    }
                    let stored = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
                    guard stored <= UInt64(Int32.max) else {
                        throw .malformed(path: path, reason: "step \(index + 1) stores \(stored) bytes")
                    }
                    steps.append(.decision(decision, request: value, bytes: Int(stored)))
                } else {
                    throw .malformed(path: path, reason: "step \(index + 1) has an unknown kind \(kind)")
                }
            }
            return (ObservedOrder(steps: steps), requests)
        }
    }
}
