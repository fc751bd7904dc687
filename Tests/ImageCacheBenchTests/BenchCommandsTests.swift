import Foundation
import Bench
import CacheSimulation
import Testing
import Workloads

/// A crafted trace: two URLs whose last path component is the same file name
/// but which show different pictures, each asked for twice; then a relaunch,
/// a warning, an edit of the first URL, and a cancelled request.
enum CraftedTrace {
    static let first = "https://a.example/x/photo.jpg"
    static let second = "https://b.example/y/photo.jpg"

    static func image(_ id: Int, _ url: String, content: UInt64) -> TraceEventKind {
        .image(ImageRequestEvent(id: id, url: url, content: content, bytes: 5_000, width: 300, height: 200, format: "jpeg",
                                 boxWidth: 100, boxHeight: 100, scale: 1, priority: .visible))
    }

    static func write() throws -> String {
        let directory = BenchProcess.temporaryFile("trace").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/crafted.jsonl"
        let writer = try TraceWriter(path: path, header: TraceHeader(app: "Crafted", modelVersion: "1", seed: 1, sessions: 1, generator: "test"))
        for event in [
            TraceEvent(time: 0, .session(1)),
            TraceEvent(time: 10, image(1, first, content: 1)),    // miss
            TraceEvent(time: 20, image(2, second, content: 2)),   // normalized: miss; lastPathComponent: wrong picture
            TraceEvent(time: 30, image(3, first, content: 1)),    // hit
            TraceEvent(time: 40, image(4, second, content: 2)),   // normalized: hit; lastPathComponent: wrong again
            TraceEvent(time: 5_000, .relaunch),
            TraceEvent(time: 5_010, image(5, first, content: 1)), // memory cold, disk hit
            TraceEvent(time: 5_020, .memoryWarning(level: "warning")),
            TraceEvent(time: 5_030, .invalidate(url: first)),
            TraceEvent(time: 5_040, image(6, first, content: 3)), // edited: origin again
            TraceEvent(time: 5_050, image(7, "https://c.example/z/other.jpg", content: 4)),
            TraceEvent(time: 5_060, .cancel(id: 7)),              // cancelled before it arrived: nothing stored
            TraceEvent(time: 5_070, image(8, "https://c.example/z/other.jpg", content: 4)),
        ] { try writer.append(event) }
        try writer.close()
        return path
    }

    /// Removes a trace `write()` made, with the folder that keeps its name.
    static func remove(_ trace: String) {
        try? FileManager.default.removeItem(atPath: (trace as NSString).deletingLastPathComponent)
    }

    static var datasets: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("datasets")
    }
}

@Suite("imagecache-bench simulate, keys, sweep, memwarn, gate")
struct BenchCommandsTests {
    static func json(_ output: BenchProcess.Output) throws -> BenchResults {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try decoder.decode(BenchResults.self, from: Data(output.stdout.utf8))
    }

    @Test("simulate counts hits, wrong images and outcomes on a crafted trace")
    func simulate() async throws {
        let trace = try CraftedTrace.write()
        defer { CraftedTrace.remove(trace) }
        let output = try await BenchProcess.run(
            ["simulate", trace, "--keys", "lastPathComponent,normalized", "--reaction", "purge-all", "--json", "--no-files"])
        #expect(output.status == 0, "\(output.stderr)")
        let results = try Self.json(output)
        let byKeys = Dictionary(uniqueKeysWithValues: results.simulations.map { ($0.keyStrategy, $0.result) })
        let normalized = try #require(byKeys["normalized"]), lastPath = try #require(byKeys["lastPathComponent"])
        // normalized: 1 and 2 origin, 3 and 4 hits, 5 a disk hit, 6 origin (edited), 7 an origin
        // transfer cancelled before it stored anything, 8 origin.
        #expect(normalized.hits == 2)
        #expect(normalized.diskHits == 1)
        #expect(normalized.wrongImages == 0)
        #expect(normalized.cancelledTransfers == 1)
        #expect(normalized.originFetches == 5)
        // lastPathComponent: requests 2 and 4 show the first URL's picture.
        #expect(lastPath.hits == 3)
        #expect(lastPath.wrongImages == 2)
        #expect(results.figures.contains { $0.id.hasSuffix("/wrongImages") && $0.value == 2 })
    }

    @Test("simulate --libcachesim replays what export writes: no relaunch, invalidation or cancel effects, no disk")
    func simulateAsLibCacheSim() async throws {
        let trace = try CraftedTrace.write()
        let exported = trace + ".oracleGeneral"
        defer { CraftedTrace.remove(trace); try? FileManager.default.removeItem(atPath: exported) }
        let options = ["--keys", "normalized", "--memory", "1MB", "--json", "--no-files", "--no-bounds"]
        let direct = try await BenchProcess.run(["simulate", trace, "--libcachesim"] + options)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(direct.stderr.contains("1 cancellation"))
        let export = try await BenchProcess.run(["export", trace, "--keys", "normalized", "--output", exported])
        #expect(export.status == 0, "\(export.stderr)")
        let viaFile = try await BenchProcess.run(["simulate", exported, "--disk", "none", "--warnings", "none", "--max-entry", "100%"] + options)
        let result = try #require(Self.json(direct).simulations.first?.result)
        // Three objects over eight requests: the relaunch, the edit and the cancel change nothing here.
        #expect(result.requests == 8 && result.hits == 5 && result.diskHits == 0)
        let fromFile = try #require(Self.json(viaFile).simulations.first?.result)
        #expect(fromFile.requests == result.requests && fromFile.hits == result.hits && fromFile.originFetches == result.originFetches)
        #expect(viaFile.stderr.contains("no offline bounds") && !viaFile.stderr.contains("bounds included"), "\(viaFile.stderr)")

        // The same file under another name is recognised by its records; in object mode sizes are counts.
        let renamed = trace + ".og"
        defer { try? FileManager.default.removeItem(atPath: renamed) }
        try FileManager.default.copyItem(atPath: exported, toPath: renamed)
        for memory in ["2", "2objects"] {
            let counted = try await BenchProcess.run(["simulate", renamed, "--objects", "--memory", memory, "--json", "--no-files", "--no-bounds"])
            #expect(counted.status == 0, "\(counted.stderr)")
            let row = try #require(Self.json(counted).simulations.first)
            #expect(row.memoryBytes == 2 && row.result.requests == result.requests)
        }
        let refused = try await BenchProcess.run(["simulate", renamed, "--memory", "2", "--no-files"])
        #expect(refused.status == 2 && refused.stderr.contains("no unit"), "\(refused.stderr)")
    }

    @Test("keys ranks strategies and names the colliding URLs")
    func keys() async throws {
        let trace = try CraftedTrace.write()
        defer { CraftedTrace.remove(trace) }
        let output = try await BenchProcess.run(["keys", trace, "--keys", "lastPathComponent,joinedPath,normalized", "--json", "--no-files"])
        #expect(output.status == 0, "\(output.stderr)")
        let rows = try Self.json(output).keyComparisons
        let lastPath = try #require(rows.first { $0.keyStrategy == "lastPathComponent" })
        let collision = try #require(lastPath.worstCollisions.first)
        #expect(collision.key == "photo.jpg" && collision.pictures == 2)
        #expect(Set([collision.first, collision.second]) == [CraftedTrace.first, CraftedTrace.second])
        #expect(lastPath.wrongImages > 0)
        let normalized = try #require(rows.first { $0.keyStrategy == "normalized" })
        #expect(normalized.wrongImages == 0 && normalized.worstCollisions.isEmpty)
    }

    @Test("sweep writes the curve data, CSV, report and results; memwarn compares reactions")
    func sweepAndMemwarn() async throws {
        let trace = try CraftedTrace.write()
        let directory = BenchProcess.temporaryFile("sweep").path
        defer { CraftedTrace.remove(trace); try? FileManager.default.removeItem(atPath: directory) }
        let sweep = try await BenchProcess.run(["sweep", trace, "--policy", "lru,sieve", "--memory", "10%,100%", "-o", directory])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        for file in ["results.json", "sweep.csv", "report.md", "mrc-crafted-jsonl.dat", "mrc-crafted-jsonl.gp"] {
            #expect(files.contains(file), "\(files)")
        }
        if Charts.gnuplot != nil { #expect(files.contains("mrc-crafted-jsonl.svg")) }
        let csv = try String(contentsOfFile: directory + "/sweep.csv", encoding: .utf8)
        #expect(csv.hasPrefix("trace,keys,policy,memory,of footprint,hit,byte hit,miss\n"))
        #expect(csv.contains(",belady,") && csv.contains(",pfoo-l,"))

        let memwarn = try await BenchProcess.run(
            ["memwarn", trace, "--warnings", "trace", "--reaction", "purge-all,ignore", "--disk", "none", "--json", "--no-files"])
        #expect(memwarn.status == 0, "\(memwarn.stderr)")
        let rows = try Self.json(memwarn).memoryWarnings
        let purge = try #require(rows.first { $0.reaction == "purge-all" }), ignore = try #require(rows.first { $0.reaction == "ignore" })
        #expect(purge.warnings == 1 && ignore.warnings == 1)
        #expect(ignore.hitRatioLoss == 0)
    }

    @Test("gate passes a run against itself and fails a regression with a readable diff")
    func gate() async throws {
        let trace = try CraftedTrace.write()
        let directory = BenchProcess.temporaryFile("gate").path
        defer { CraftedTrace.remove(trace); try? FileManager.default.removeItem(atPath: directory) }
        let run = try await BenchProcess.run(["simulate", trace, "--keys", "normalized", "-o", directory])
        #expect(run.status == 0, "\(run.stderr)")
        let results = directory + "/results.json"
        let same = try await BenchProcess.run(["gate", results, "--baseline", results, "--json"])
        #expect(same.status == 0, "\(same.stdout)")
        let verdict = try JSONDecoder().decode(Gate.Outcome.self, from: Data(same.stdout.utf8))
        #expect(verdict.passed && verdict.compared > 0 && verdict.regressions.isEmpty && verdict.improvements.isEmpty)

        // A baseline whose hit ratio was higher: the run now regresses.
        var baseline = try Gate.load(results)
        #expect(baseline.tool?.version == ToolProvenance.version)
        let checkout = CraftedTrace.datasets.deletingLastPathComponent().appendingPathComponent(".git")
        if FileManager.default.fileExists(atPath: checkout.path) {
            let commit = try #require(baseline.tool?.commit)
            #expect(commit.count == 40 && commit.allSatisfy(\.isHexDigit))
            let version = try await BenchProcess.run(["--version"])
            #expect(version.status == 0 && version.stdout.hasPrefix(ToolProvenance.version + " (" + commit.prefix(12)))
        }
        let index = try #require(baseline.figures.firstIndex { $0.id.hasSuffix("/hitRatio") })
        baseline.figures[index].value += 0.01
        let doctored = directory + "/baseline.json"
        try JSONEncoder().encode(baseline).write(to: URL(fileURLWithPath: doctored))
        let regressed = try await BenchProcess.run(["gate", results, "--baseline", doctored, "--deterministic-only", "--json"])
        #expect(regressed.status == 1)
        let failed = try JSONDecoder().decode(Gate.Outcome.self, from: Data(regressed.stdout.utf8))
        #expect(!failed.passed && failed.regressions.map(\.id) == [baseline.figures[index].id])
        #expect(failed.regressions.first?.baseline == baseline.figures[index].value)
        // People read the same verdict as text, the regressed figure named.
        let text = try await BenchProcess.run(["gate", results, "--baseline", doctored, "--deterministic-only"])
        #expect(text.status == 1 && text.stdout.contains("✗ " + baseline.figures[index].id))
    }

    @Test("gate refuses figures it cannot judge (nan, duplicates) and a baseline another command made")
    func gateStrictness() async throws {
        let trace = try CraftedTrace.write()
        let directory = BenchProcess.temporaryFile("gate-strict").path
        defer { CraftedTrace.remove(trace); try? FileManager.default.removeItem(atPath: directory) }
        let run = try await BenchProcess.run(["simulate", trace, "--keys", "normalized", "--policy", "lru", "-o", directory + "/one"])
        let wider = try await BenchProcess.run(["simulate", trace, "--keys", "normalized", "--policy", "lru,fifo", "-o", directory + "/two"])
        #expect(run.status == 0 && wider.status == 0, "\(run.stderr)\(wider.stderr)")
        let results = directory + "/one/results.json"
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        func doctored(_ name: String, _ change: (inout BenchResults) -> Void) throws -> String {
            var results = try Gate.load(results)
            change(&results)
            let path = directory + "/" + name
            try encoder.encode(results).write(to: URL(fileURLWithPath: path))
            return path
        }
        let nan = try doctored("nan.json") { $0.figures[0].value = .nan }
        let notANumber = try await BenchProcess.run(["gate", nan, "--baseline", results])
        #expect(notANumber.status == 1 && notANumber.stderr.contains("is nan, not a number gate can judge"), "\(notANumber.stderr)")
        let twice = try doctored("twice.json") { $0.figures.append($0.figures[0]) }
        let duplicate = try await BenchProcess.run(["gate", results, "--baseline", twice])
        #expect(duplicate.status == 1 && duplicate.stderr.contains("appears more than once"), "\(duplicate.stderr)")

        // The lru-only run against the lru+fifo baseline: refused, then compared on what both have.
        let other = try await BenchProcess.run(["gate", results, "--baseline", directory + "/two/results.json"])
        #expect(other.status == 1 && other.stderr.contains("--policy lru,fifo") && other.stderr.contains("--shared-figures-only"), "\(other.stderr)")
        let shared = try await BenchProcess.run(["gate", results, "--baseline", directory + "/two/results.json", "--shared-figures-only", "--json"])
        #expect(shared.status == 0, "\(shared.stdout)\(shared.stderr)")
        let onShared = try JSONDecoder().decode(Gate.Outcome.self, from: Data(shared.stdout.utf8))
        #expect(onShared.passed && onShared.compared > 0 && onShared.notInThisRun > 0)
    }

    @Test("usage errors exit with status 2 and say what to do; a missing trace is a one-line error")
    func badInput() async throws {
        let size = try await BenchProcess.run(["simulate", "--memory", "12XB"])
        #expect(size.status == 2)
        #expect(size.stderr.contains("--memory: \"12XB\" is not a size: unknown unit \"xb\" (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"), "\(size.stderr)")
        let flag = try await BenchProcess.run(["simulate", "--no-such-flag"])
        #expect(flag.status == 2)
        let policy = try await BenchProcess.run(["simulate", "--policy", "mru"])
        #expect(policy.status == 2)
        #expect(policy.stderr.contains("unknown policy \"mru\"; choose from lru"))
        let missing = try await BenchProcess.run(["simulate", "/no/such/trace.jsonl"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/no/such/trace.jsonl: cannot open for reading"))
    }

    @Test("output places are checked before any work; a reused results folder keeps no earlier file")
    func outputPlaces() async throws {
        let trace = try CraftedTrace.write()
        let directory = BenchProcess.temporaryFile("places").path
        defer { CraftedTrace.remove(trace); try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/mixed", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: directory + "/mixed/notes.txt"))
        try Data().write(to: URL(fileURLWithPath: directory + "/file"))
        for (place, message) in [
            ("file", "file: a file, not a folder"), ("file/sub", "inside a file"),
            ("mixed", "the folder holds other files"),
        ] {
            let refused = try await BenchProcess.run(["simulate", trace, "-o", directory + "/" + place])
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(place): \(refused.stderr)")
        }
        let both = try await BenchProcess.run(["simulate", trace, "--json", "--markdown"])
        #expect(both.status == 2 && both.stderr.contains("--json and --markdown"))
        let badBaseline = try await BenchProcess.run(["gate", trace, "--baseline", directory + "/none/b.json", "--update-baseline"])
        #expect(badBaseline.status == 2 && badBaseline.stderr.contains("is not a writable folder"))

        let run = directory + "/run"
        #expect(try await BenchProcess.run(["simulate", trace, "--keys", "normalized", "-o", run]).status == 0)
        // A file the user put there is theirs: the next run replaces only what the earlier run wrote.
        try Data("old".utf8).write(to: URL(fileURLWithPath: run + "/keys.csv"))
        #expect(try await BenchProcess.run(["simulate", trace, "--keys", "normalized", "-o", run]).status == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: run).sorted()
        #expect(files == [".lock", "keys.csv", "report.md", "results.json", "simulations.csv"])  // .lock: the folder's lock, held by a run
        #expect(FileManager.default.contents(atPath: run + "/keys.csv") == Data("old".utf8))
    }

    @Test("numbers out of range, not finite or negative are usage errors naming the option, before any work",
          arguments: [
              (["replay", "--latency=-50"], "--latency is a median in milliseconds, 0 to 60000, not -50.0"),
              (["replay", "--latency", "nan"], "--latency is a median in milliseconds, 0 to 60000, not nan"),
              (["replay", "--speed", "inf"], "--speed is 0 (as fast as possible) or a finite speed-up"),
              (["record", "--app", "all", "-o", "/tmp/never.jsonl", "--sessions", "-3"], "--sessions must be from 1 to 1000000, not -3"),
              (["stress", "--soak", "0"], "--soak must be from 1 to 20, not 0"),
              (["synth-trace", "-o", "/tmp/never.icbt", "--alpha", "nan"], "--alpha is a Zipf exponent, 0 to 10, not nan"),
              (["thumbnail", "x.jpg", "--width=-5"], "--width must be from 0 to 100000, not -5"),
              (["gate", "a", "--baseline", "b", "--timing-threshold=-1"], "--timing-threshold is a relative slowdown"),
              (["simulate", "--requests", "-1"], "--requests must be from 1 to 1000000000000, not -1"),
              (["simulate", "--memory", "64"], "--memory: \"64\" is not a size: no unit; write a number with a unit"),
              (["replay", "--network", "lte", "--speed", "2"], "--network times the model back to back, as --speed 0 sends requests"),
              (["recommend", "--memory-budget", "64MB", "--optimize", "p95"], "--optimize p95 needs --network"),
              (["memwarn", "--network", "5g"], "--network: unknown network \"5g\""),
              (["recommend", "--memory-budget", "64MB", "--arrivals", "sideways"], "--arrivals is recorded or back-to-back, not 'sideways'"),
              (["memwarn", "--arrivals", "sideways"], "--arrivals is recorded or back-to-back, not 'sideways'"),
          ])
    func badNumbers(arguments: [String], message: String) async throws {
        let output = try await BenchProcess.run(arguments)
        #expect(output.status == 2, "\(output.stderr)")
        #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test("sizes parse in decimal and binary units and as a share of the working set")
    func sizes() throws {
        #expect(try ByteSize(parsing: "64MB") == .bytes(64_000_000))
        #expect(try ByteSize(parsing: "1.5GiB") == .bytes(1_610_612_736))
        #expect(try ByteSize(parsing: "800KiB") == .bytes(819_200))
        #expect(try ByteSize(parsing: "4096B") == .bytes(4096))
        #expect(try ByteSize(parsing: "10%") == .fraction(0.1))
        #expect(ByteSize.fraction(0.1).resolved(footprint: 1_000) == 100)
        for bad in ["", "MB", "-5MB", "12XB", "0%", "0B", "8EiB", "9223372036854775807B", "abc%", "64", "nanMB", "infGB"] {
            #expect(throws: ByteSize.ParseError.self) { try ByteSize(parsing: bad) }
        }
    }

    @Test("an empty trace is refused naming file:line, and every trace command takes it with --allow-empty")
    func emptyTrace() async throws {
        let directory = BenchProcess.temporaryFile("empty").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/empty.jsonl"
        let writer = try TraceWriter(path: path, header: TraceHeader(app: "Crafted", modelVersion: "1", seed: 1, sessions: 0, generator: "test"))
        try writer.close()
        let refused = try await BenchProcess.run(["simulate", path, "--no-files"])
        #expect(refused.status == 1 && refused.stderr.contains("empty.jsonl:1: no events after the header"), "\(refused.stderr)")
        for command in [["simulate"], ["keys"], ["sweep"], ["memwarn"], ["stats"], ["export", "-o", directory + "/empty.oracleGeneral"]] {
            let files = ["stats", "export"].contains(command[0]) ? [] : ["--no-files"]
            let output = try await BenchProcess.run(command + [path, "--allow-empty"] + files)
            #expect(output.status == 0, "\(command[0]): \(output.stderr)")
        }
        let exported = try FileManager.default.attributesOfItem(atPath: directory + "/empty.oracleGeneral")[.size] as? Int
        #expect(exported == 0)
    }

    @Test("sizes and warning sources are labelled as they were typed, and the labels parse back to the same value")
    func labelsAsTyped() throws {
        for typed in ["150MB", "100MiB", "1.5GiB", "64KB", "800KiB", "2GB", "4KiB", "999B"] {
            let size = try ByteSize(parsing: typed)
            #expect(size.description == typed)
            #expect(try ByteSize(parsing: size.description) == size)
        }
        #expect(ByteSize.format(150_000_001) == "143.1MiB")  // no unit gives it exactly: the nearest binary one
        for typed in ["every:30s", "every:0.5s", "above:64MB", "above:1.5GiB", "trace", "none"] {
            let source = try SimulationConfiguration.WarningSource(parsing: typed)
            #expect(source.description == typed)
            #expect(try SimulationConfiguration.WarningSource(parsing: source.description) == source)
        }
    }
}

