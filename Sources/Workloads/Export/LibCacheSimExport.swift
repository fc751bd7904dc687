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

    public init(strategy: CacheKeyStrategy, layout: Layout) {
        self.strategy = strategy
        self.layout = layout
    }

    struct Record {
        var seconds: UInt32
        var object: UInt64
        var size: UInt32
    }

    /// Converts `input` (a trace) to `output`; returns the number of requests written.
    @discardableResult
    public func export(_ input: String, to output: String) throws -> Int {
        let records = try collect(input)
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
        return records.count
    }

    private func collect(_ input: String) throws -> [Record] {
        var reader = try TraceReader(path: input)
        var ids: [String: UInt64] = [:]
        var records: [Record] = []
        var session = 0, sessionStart = 0, lastTime = 0
        var lastObject: UInt64 = 0
        while let event = try reader.next() {
            if case .session = event.kind {
                session += 1
                sessionStart = session == 1 ? 0 : lastTime + 1000  // sessions a second apart
                if scopeToSession { ids.removeAll(keepingCapacity: true) }
            }
            let time = sessionStart + event.time
            lastTime = max(lastTime, time)
            guard case .image(let image) = event.kind else { continue }
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
        return records
    }

    private func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
