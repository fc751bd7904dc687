import CacheSimulation
import Foundation
import ImagePipeline
import Testing
import Workloads

@Suite("Delimited traces: libCacheSim csv and txt, any CSV/TSV by its columns")
struct DelimitedTraceTests {
    let directory = BenchProcess.temporaryFile("delimited").path

    /// A file in `directory`, made on first use so a test that writes nothing leaves nothing behind.
    func file(_ name: String) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/" + name
    }

    func write(_ name: String, _ text: String) throws -> String {
        let path = try file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("every dataset exported as csv reads back as the same requests as its oracleGeneral export, and simulates alike")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let names = try FileManager.default.contentsOfDirectory(atPath: CraftedTrace.datasets.path).filter { $0.hasSuffix(".jsonl.gz") }
        #expect(names.count >= 6)
        for name in names {
            let source = CraftedTrace.datasets.appendingPathComponent(name).path
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

    @Test("stats reads a dataset's csv and oracleGeneral exports alike, every request counted")
    func statsOfExports() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = CraftedTrace.datasets.appendingPathComponent("mymarket.jsonl.gz").path
        let csv = try file("mymarket.csv"), binary = try file("mymarket.oracleGeneral")
        try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .csv).export(source, to: csv)
        try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .oracleGeneral).export(source, to: binary)
        let output = try await BenchProcess.run(["stats", csv, binary, "--json"])
        #expect(output.status == 0, "\(output.stderr)")
        let statistics = try JSONDecoder().decode([String: PlainTraceStatistics].self, from: Data(output.stdout.utf8))
        let fromCSV = try #require(statistics["mymarket.csv"]), fromBinary = try #require(statistics["mymarket.oracleGeneral"])
        #expect(fromCSV == fromBinary)
        #expect(try fromCSV.requests == RecordedWorkload.load(path: source).requests.count)
        #expect(try fromCSV.uniqueBytes == OracleGeneralTrace.read(binary, objects: false).memoryFootprint)
    }

    @Test("a mapped TSV: columns in any order, a header, quoted keys, text keys, a time unit")
    func mappedColumns() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
        defer { try? FileManager.default.removeItem(atPath: directory) }
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
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = try write("bad.csv", bad.text)
        #expect { try DelimitedTrace.read(path, format: .libCacheSimCSV) } throws: { error in
            "\(error)".hasPrefix(path + ":") && "\(error)".contains(bad.message)
        }
    }

    @Test("a format built in code with a column 0 or past the mapping's range is a typed error at file:line, not a crash")
    func columnsOutsideTheMapping() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
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

    @Test("simulate and sweep read a csv by its name, and any TSV with --trace-format and --columns")
    func command() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let csv = try write("t.csv", "time,obj_id,obj_size\n0,1,100\n1,2,100\n2,1,100\n3,3,100\n4,1,100\n")
        let custom = try write("t.log", "a\t100\nb\t100\na\t100\nc\t100\na\t100\n")
        let options = ["--policy", "lru", "--memory", "200B", "--disk", "none", "--warnings", "none", "--max-entry", "100%",
                       "--no-bounds", "--no-files", "--json"]
        let fromCSV = try await BenchProcess.run(["simulate", csv] + options)
        #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
        let fromLog = try await BenchProcess.run(["simulate", custom, "--trace-format", "tsv", "--columns", "key=1,size=2"] + options)
        #expect(fromLog.status == 0, "\(fromLog.stderr)")
        let first = try #require(BenchCommandsTests.json(fromCSV).simulations.first?.result)
        let second = try #require(BenchCommandsTests.json(fromLog).simulations.first?.result)
        #expect(first.requests == 5 && first.hits == 2 && second.requests == 5 && second.hits == first.hits)
        let sweep = try await BenchProcess.run(["sweep", csv, "--policy", "lru", "--memory", "150B,1000B,2000B", "--no-files", "--json"])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let curve = try BenchCommandsTests.json(sweep).sweeps.filter { $0.policy == "lru" }.sorted { $0.memoryBytes < $1.memoryBytes }
        // 150 B holds no 100 B object (an entry may take a tenth of memory); 1,000 B and more: both reuses of "1" hit.
        #expect(curve.map(\.hitRatio) == [0, 0.4, 0.4])
        // Without bounds the file is simulated as it is read: a bad line still refuses the run, at file:line, with no figures.
        let bad = try write("bad.csv", "time,obj_id,obj_size\n0,1,100\n1,2,100\n2,1,lots\n")
        let broken = try await BenchProcess.run(["simulate", bad] + options)
        #expect(broken.status != 0 && broken.stderr.contains("bad.csv:4:") && !broken.stdout.contains("\"simulations\""), "\(broken.stderr)")
        let refused = try await BenchProcess.run(["keys", csv, "--no-files"])
        #expect(refused.status != 0 && refused.stderr.contains("this command reads recorded traces"))
    }
}
