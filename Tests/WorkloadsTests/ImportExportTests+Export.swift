import Foundation
import ImagePipeline
import Testing
@testable import Workloads

extension ImportExportTests {
    @Test("statistics: reuse distances and wrong-key hazards per strategy")
    func statistics() throws {
        let statistics = try TraceStatistics.of(path: try smallTrace("s.jsonl"))
        #expect(statistics.imageRequests == 5 && statistics.uniqueURLs == 2 && statistics.uniqueContents == 3)
        #expect(statistics.sessions == 2 && statistics.invalidations == 1)
        // Requests 3 and 4 reuse a URL; distances 1 (one other URL between) and 0.
        #expect(statistics.reuseRatio == 0.4 && statistics.reuseDistanceP50 == 1)
        // lastPathComponent: request 2 and 3 each find the other picture under 840_560.jpeg.
        #expect(statistics.wrongKeyHazards["lastPathComponent"] == 2)
        #expect(statistics.wrongKeyHazards["joinedPath"] == 0)
        #expect(statistics.wrongKeyHazards["absoluteString"] == 0, "the edit was invalidated first")
    }

    @Test("libCacheSim CSV and oracleGeneral layouts, byte by byte")
    func libCacheSimLayouts() throws {
        let trace = try smallTrace("e.jsonl")
        let csv = temporary("x.csv"), binary = temporary("x.bin")
        let summary = try LibCacheSimExport(strategy: CacheKeyStrategy(.lastPathComponent), layout: .csv).export(trace, to: csv)
        var expected = LibCacheSimExport.Summary()
        (expected.requests, expected.invalidations) = (5, 1)
        #expect(summary == expected)
        #expect(summary.notCarried == "1 invalidation")
        // Session 2 starts a second after session 1's last event (t 3000 ms → 4000 ms), with its own ids.
        #expect(try String(contentsOfFile: csv, encoding: .utf8) == "time,obj_id,obj_size\n0,1,100\n1,1,200\n2,1,100\n3,1,100\n4,2,100\n")
        try LibCacheSimExport(strategy: CacheKeyStrategy(.absoluteString), layout: .oracleGeneral).export(trace, to: binary)
        let data = try Data(contentsOf: URL(fileURLWithPath: binary))
        #expect(data.count == 5 * 24)
        func record(_ index: Int) -> (UInt32, UInt64, UInt32, Int64) {
            data.withUnsafeBytes { raw in
                let base = index * 24
                return (UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt32.self)),
                        UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 4, as: UInt64.self)),
                        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self)),
                        Int64(littleEndian: raw.loadUnaligned(fromByteOffset: base + 16, as: Int64.self)))
            }
        }
        #expect(record(0) == (0, 1, 100, 2))
        #expect(record(1) == (1, 2, 200, -1))
        #expect(record(2) == (2, 1, 100, 3))
        #expect(record(3) == (3, 1, 100, -1))
        #expect(record(4) == (4, 3, 100, -1))
    }

    @Test("export counts what libCacheSim cannot replay: cancels, offline requests, warnings, relaunches")
    func exportNamesDroppedEvents() throws {
        let path = temporary("d.jsonl"), output = temporary("d.csv")
        let writer = try TraceWriter(path: path, header: TraceHeader(app: "t", modelVersion: "1", seed: 1, sessions: 1, generator: "test"))
        for event in [
            TraceEvent(time: 0, .session(1)),
            TraceEvent(time: 0, .offline(true)),
            TraceEvent(time: 10, Self.image(1, "https://a/1.jpg", content: 1, bytes: 100)),
            TraceEvent(time: 20, .cancel(id: 1)),
            TraceEvent(time: 30, .memoryWarning(level: "warning")),
            TraceEvent(time: 40, .relaunch),
            TraceEvent(time: 50, Self.image(2, "https://a/1.jpg", content: 1, bytes: 100)),
        ] { try writer.append(event) }
        try writer.close()
        let summary = try LibCacheSimExport(strategy: CacheKeyStrategy(.normalized), layout: .csv).export(path, to: output)
        #expect(summary.requests == 2)
        #expect(summary.notCarried == "1 cancellation, 1 request made offline, 1 memory warning, 1 relaunch")
    }

    @Test("gzip traces: written deterministically, read back the same")
    func gzipRoundTrip() throws {
        let plain = try smallTrace("p.jsonl")
        var reader = try TraceReader(path: plain)
        let events = try reader.readAll()
        let first = temporary("a.jsonl.gz"), second = temporary("b.jsonl.gz")
        for path in [first, second] {
            let writer = try TraceWriter(path: path, header: reader.header)
            for event in events { try writer.append(event) }
            try writer.close()
        }
        let compressed = try Data(contentsOf: URL(fileURLWithPath: first))
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
        #expect(compressed == (try Data(contentsOf: URL(fileURLWithPath: second))))
        var again = try TraceReader(path: first)
        #expect(try again.readAll() == events)
        // A damaged stream is an error, not a crash or silent truncation.
        var damaged = compressed
        damaged.replaceSubrange(20..<min(60, damaged.count), with: Data(repeating: 0xFF, count: min(60, damaged.count) - 20))
        let broken = temporary("c.jsonl.gz")
        try damaged.write(to: URL(fileURLWithPath: broken))
        #expect(throws: TraceError.self) {
            var reader = try TraceReader(path: broken)
            _ = try reader.readAll()
        }
    }
}

@Suite("URL catalogue for the origin")
struct CatalogueForOriginTests {
}
