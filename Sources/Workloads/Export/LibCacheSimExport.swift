import Foundation
import ImagePipeline

/// Writes a trace's image requests for libCacheSim, the standard cache
/// simulator: its CSV layout (`time,obj_id,obj_size`) or its `oracleGeneral`
/// binary layout (24 bytes a request, little-endian: u32 time in seconds,
/// u64 object id, u32 size, i64 index of the next request for the object or -1).
///
/// Object ids come from the cache key under `strategy`, numbered in order of
/// first appearance. Each session is one device, so by default ids are scoped
/// to their session (device caches are not shared); times run on across sessions.
public struct LibCacheSimExport {
    public enum Layout: String, Sendable, CaseIterable { case csv, oracleGeneral }

    public var strategy: CacheKeyStrategy
    public var layout: Layout
    public var scopeToSession = true
    /// Whether a trace with no events is exported (as an empty file) rather than refused.
    public var allowsEmpty = false

    public init(strategy: CacheKeyStrategy, layout: Layout) {
        self.strategy = strategy
        self.layout = layout
    }

    struct Record {
        var seconds: UInt32
        var object: UInt64
        var size: UInt32
    }

    /// What an export wrote, and what of the trace its layout cannot carry: libCacheSim
    /// replays every request as a plain lookup of one object of one size.
    public struct Summary: Sendable, Equatable {
        public var requests = 0
        /// Requests the app cancelled (exported as if answered).
        public var cancellations = 0
        /// Requests made while offline (exported as if the network answered).
        public var offlineRequests = 0
        public var memoryWarnings = 0
        public var relaunches = 0
        public var invalidations = 0
        /// Requests larger than the layout's 32-bit size (exported at 4 GiB − 1).
        public var clampedSizes = 0

        /// "1,008 cancellations, 36 memory warnings", or nil when nothing was left out.
        public var notCarried: String? {
            let counts = [(cancellations, "cancellation", "cancellations"), (offlineRequests, "request made offline", "requests made offline"),
                          (memoryWarnings, "memory warning", "memory warnings"), (relaunches, "relaunch", "relaunches"),
                          (invalidations, "invalidation", "invalidations"), (clampedSizes, "size clamped to 32 bits", "sizes clamped to 32 bits")]
            let parts = counts.filter { $0.0 > 0 }.map { "\($0.0.formatted()) \($0.0 == 1 ? $0.1 : $0.2)" }
            return parts.isEmpty ? nil : parts.joined(separator: ", ")
        }
    }

    /// Converts `input` (a trace) to `output`.
    @discardableResult
    public func export(_ input: String, to output: String) throws -> Summary {
        let (records, summary) = try collect(input)
        var data = Data()
        switch layout {
        case .csv:
            data.append(contentsOf: "time,obj_id,obj_size\n".utf8)
            for record in records { data.append(contentsOf: "\(record.seconds),\(record.object),\(record.size)\n".utf8) }
        case .oracleGeneral:
            data.reserveCapacity(records.count * 24)
            var nextUse = [UInt64: Int64]()
            var next = [Int64](repeating: -1, count: records.count)
            for index in records.indices.reversed() {
                next[index] = nextUse[records[index].object] ?? -1
                nextUse[records[index].object] = Int64(index)
            }
            for (index, record) in records.enumerated() {
                append(record.seconds, to: &data)
                append(record.object, to: &data)
                append(record.size, to: &data)
                append(next[index], to: &data)
            }
        }
        guard FileManager.default.createFile(atPath: output, contents: data) else {
            throw TraceError.io(file: output, reason: "cannot write")
        }
        return summary
    }

    private func collect(_ input: String) throws -> ([Record], Summary) {
        var reader = try TraceReader(path: input, allowsEmpty: allowsEmpty)
        var ids: [String: UInt64] = [:]
        var records: [Record] = []
        var summary = Summary()
        var session = 0, sessionStart = 0, lastTime = 0, offline = false
        var lastObject: UInt64 = 0
        while let event = try reader.next() {
            switch event.kind {
            case .session:
                session += 1
                sessionStart = session == 1 ? 0 : lastTime + 1000  // sessions a second apart
                offline = false
                if scopeToSession { ids.removeAll(keepingCapacity: true) }
            case .cancel: summary.cancellations += 1
            case .memoryWarning: summary.memoryWarnings += 1
            case .relaunch:
                summary.relaunches += 1
                offline = false
            case .offline(let isOffline): offline = isOffline
            case .invalidate: summary.invalidations += 1
            case .api, .image: break
            }
            let time = sessionStart + event.time
            lastTime = max(lastTime, time)
            guard case .image(let image) = event.kind else { continue }
            if offline { summary.offlineRequests += 1 }
            if image.bytes > Int(UInt32.max) { summary.clampedSizes += 1 }
            let processing = ProcessingOptions(ThumbnailRequest(width: image.boxWidth, height: image.boxHeight, scale: image.scale))
            let key = strategy.key(for: image.url, processing: processing)
            let object: UInt64
            if let known = ids[key] { object = known } else {
                lastObject += 1
                object = lastObject
                ids[key] = object
            }
            records.append(Record(seconds: UInt32(clamping: time / 1000), object: object, size: UInt32(clamping: image.bytes)))
        }
        summary.requests = records.count
        return (records, summary)
    }

    private func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
