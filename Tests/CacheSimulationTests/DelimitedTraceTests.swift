import CacheSimulation
import Foundation
import PipelineTesting
import ImagePipeline
import Testing
import Workloads

@Suite("Delimited traces: libCacheSim csv and txt, any CSV/TSV by its columns")
struct DelimitedTraceTests {
    let folder = TemporaryFolder("delimited")

    func file(_ name: String) throws -> String { try folder.file(name) }
    func write(_ name: String, _ text: String) throws -> String { try folder.write(name, text) }

    @Test("every dataset exported as csv reads back as the same requests as its oracleGeneral export, and simulates alike")
    func roundTrip() throws {
        defer { folder.remove() }
        let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../datasets").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: datasets.path).filter { $0.hasSuffix(".jsonl.gz") }
        #expect(names.count >= 6)
        for name in names {
            let source = datasets.appendingPathComponent(name).path
            let csv = try file("\(name).csv"), binary = try file("\(name).oracleGeneral")
            try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .csv).export(source, to: csv)
            try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .oracleGeneral).export(source, to: binary)
            let fromText = try DelimitedTrace.read(csv, format: .libCacheSimCSV)
            let fromBinary = try OracleGeneralTrace.read(binary, objects: false)
            #expect(fromText.count > 0 && fromText.keys == fromBinary.keys && fromText.costs == fromBinary.costs, "\(name)")
            #expect(fromText.times == fromBinary.times && fromText.fingerprints == fromBinary.fingerprints, "\(name)")
            for policy in [EvictionPolicyKind.lru, .s3fifo(moveToMainThreshold: 1), .wTinyLFU] {
                let configuration = SimulationConfiguration(limits: CacheLimits(costLimit: 4 << 20, maxEntryFraction: 1), policy: policy)
                #expect(CacheSimulator.run(fromText, configuration) == CacheSimulator.run(fromBinary, configuration), "\(name) \(policy)")
            }
        }
    }

    @Test("a mapped TSV: columns in any order, a header, quoted keys, text keys, a time unit")
    func mappedColumns() throws {
        defer { folder.remove() }
        let path = try write("requests.dat", [
            "bytes\tms\turl", "300\t5\thttps://a.example/1.jpg", "200\t7\t\"https://b.example/x,y.jpg\"",
            "300\t9\thttps://a.example/1.jpg", "50\t11\t\"say \"\"cheese\"\"\"", "",
        ].joined(separator: "\n"))
        let format = try DelimitedTraceFormat(delimiter: UInt8(ascii: "\t"), key: 1).with(columns: "size=1,time=2,key=3")
        var timed = format
        timed.timeUnit = .ms
        let trace = try DelimitedTrace.read(path, format: timed)
        #expect(trace.count == 4)
        #expect(trace.keys == [0, 1, 0, 2])
        #expect(trace.costs == [300, 200, 300, 50])
        #expect(trace.times == [5_000_000, 7_000_000, 9_000_000, 11_000_000])
        #expect(trace.fingerprints == ["https://a.example/1.jpg", "https://b.example/x,y.jpg", "say \"cheese\""].map(\.cacheFingerprint))
        let objects = try DelimitedTrace.read(path, format: timed, objects: true)
        #expect(objects.costs == [1, 1, 1, 1])
    }

    @Test("a key is one key however its number is spelled; numbers read with blanks around them; slots follow first use across the reader's batches")
    func spellings() throws {
        defer { folder.remove() }
        // Keys: "7", "007" and "+7" are the number 7; " 7" and "a7" are text. Times and sizes
        // padded with spaces and tabs, or written as decimals, read as their values.
        let spellings = ["7", "007", "+7", " 7", "a7", "\"7\"", "18446744073709551615", "18446744073709551616"]
        var lines = ["time,obj_id,obj_size"]
        var expectedKeys: [Slot] = [], expectedTimes: [UInt64] = [], expectedSizes: [Int] = []
        var slotOf: [String: Slot] = [:]
        // More requests than the reader interns at once, so the order holds across its batches.
        for index in 0..<10_000 {
            let spelling = index % 3 == 0 ? spellings[index % spellings.count] : String(index * 7_919 % 2_000)
            let identity = switch spelling {
            case "7", "007", "+7", "\"7\"": "7"
            default: spelling
            }
            let slot = slotOf[identity] ?? Slot(slotOf.count)
            slotOf[identity] = slot
            expectedKeys.append(slot)
            let seconds = index / 10
            let time = index % 5 == 0 ? " \t\(seconds) " : index % 7 == 0 ? "\(seconds).0" : "\(seconds)"
            let size = index % 11
            lines.append("\(time),\(spelling),\(index % 4 == 0 ? "  \(size)\t" : "\(size)")")
            expectedTimes.append(UInt64(seconds) * 1_000_000_000)
            expectedSizes.append(size)
        }
        let trace = try DelimitedTrace.read(try write("spellings.csv", lines.joined(separator: "\n")), format: .libCacheSimCSV)
        #expect(trace.keys == expectedKeys)
        #expect(trace.times == expectedTimes)
        #expect(trace.costs == expectedSizes && trace.sizes == expectedSizes)
        #expect(trace.keyCount == slotOf.count)
        #expect(trace.fingerprints[Int(slotOf["7"]!)] == 7 && trace.fingerprints[Int(slotOf["18446744073709551615"]!)] == .max)
        #expect(trace.fingerprints[Int(slotOf[" 7"]!)] == " 7".cacheFingerprint)
        #expect(trace.fingerprints[Int(slotOf["18446744073709551616"]!)] == "18446744073709551616".cacheFingerprint)
    }

    @Test("a plain CSV's columns are sized from the file's bytes once a batch is read, not doubled as they fill")
    func columnsSizedFromTheFile() throws {
        defer { folder.remove() }
        let requests = 10_000
        let lines = ["time,obj_id,obj_size"] + (0..<requests).map { "\($0 / 100),\($0 * 7_919 % 3_000),\(100 + $0 % 900)" }
        let trace = try DelimitedTrace.read(try write("sized.csv", lines.joined(separator: "\n")), format: .libCacheSimCSV)
        #expect(trace.count == requests)
        // Doubling would leave 16,384 places; the estimate allows a tenth over, and malloc rounds up.
        for capacity in [trace.keys.capacity, trace.costs.capacity, trace.times.capacity] {
            #expect(capacity >= requests && capacity <= requests * 5 / 4, "capacity \(capacity)")
        }
    }

    @Test("libCacheSim's txt: an object id a line, a second apart, each weighing 1")
    func text() throws {
        defer { folder.remove() }
        let trace = try DelimitedTrace.read(try write("ids.txt", "7\n8\n\n7\n"), format: .libCacheSimText)
        #expect(trace.keys == [0, 1, 0] && trace.costs == [1, 1, 1] && trace.fingerprints == [7, 8])
        #expect(trace.times == [0, 1_000_000_000, 2_000_000_000])
    }

    @Test("a bad field is refused at file:line:column", arguments: [
        ("time,obj_id,obj_size\n1,5,100\n2,6,lots\n", "3:5: size \"lots\" is not a whole number"),
        ("1,5,100\n-4,6,10\n", "2:1: time \"-4\" is not a number of s"),
        ("1,5,100\n2,\"6,10\n", "2:3: a quoted field without its closing quote"),
        ("1,5,100\n2,6\n", "2: 2 fields, and column 3 is wanted"),
        ("1,,100\n", "1:3: the key is empty"),
        ("time,obj_id,obj_size\n", "1: no requests"),
    ])
    func refusals(_ bad: (text: String, message: String)) throws {
        defer { folder.remove() }
        let path = try write("bad.csv", bad.text)
        #expect { try DelimitedTrace.read(path, format: .libCacheSimCSV) } throws: { error in
            "\(error)".hasPrefix(path + ":") && "\(error)".contains(bad.message)
        }
    }

    @Test("a format built in code with a column 0 or past the mapping's range is a typed error at file:line, not a crash")
    func columnsOutsideTheMapping() throws {
        defer { folder.remove() }
        let path = try write("codeformat.csv", "1,5,100\n2,6,10\n")
        for key in [0, 2_000] {
            let format = DelimitedTraceFormat(delimiter: UInt8(ascii: ","), key: key, time: 1, size: 3)
            #expect { try DelimitedTrace.read(path, format: format) } throws: { error in
                "\(error)".hasPrefix(path + ":1:") && "\(error)".contains("column \(key)")
            }
        }
    }

    @Test("column mappings are checked", arguments: ["time=1,size=2", "key=0", "key=1,time=1", "key=1,when=2", "key"])
    func mappings(_ mapping: String) {
        #expect(throws: DelimitedTraceError.self) { try DelimitedTraceFormat.libCacheSimCSV.with(columns: mapping) }
    }

}
