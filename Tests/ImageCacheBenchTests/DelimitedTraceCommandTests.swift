import CacheSimulation
import Foundation
import PipelineTesting
import Testing
import Workloads

/// The commands on delimited traces: `stats`, `simulate` and `sweep` read them as users give them.
@Suite("Delimited traces through the commands")
struct DelimitedTraceCommandTests {
    let folder = TemporaryFolder("delimited-commands")

    func file(_ name: String) throws -> String { try folder.file(name) }
    func write(_ name: String, _ text: String) throws -> String { try folder.write(name, text) }

    @Test("stats reads a dataset's csv and oracleGeneral exports alike, every request counted")
    func statsOfExports() async throws {
        defer { folder.remove() }
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

    @Test("simulate and sweep read a csv by its name, and any TSV with --trace-format and --columns")
    func command() async throws {
        defer { folder.remove() }
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
