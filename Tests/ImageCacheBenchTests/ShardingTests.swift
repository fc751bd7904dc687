import Foundation
import Testing
@testable import Bench

@Suite("Sharded runs merge into the whole run")
struct ShardingTests {
    static let project = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Three small traces (the first 1,500 requests of each): quick in a debug build.
    static let traces = ["vanilladin-small.jsonl", "mymarket.jsonl.gz", "headlines.jsonl.gz"].map {
        project.appendingPathComponent("datasets/" + $0).path
    } + ["--requests", "1500"]

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a command to completion and requires it to succeed.
    static func expectSuccess(_ arguments: [String]) async throws {
        let output = try await BenchProcess.run(arguments)
        #expect(output.status == 0, "\(arguments.joined(separator: " ")): \(output.stderr)")
    }

    /// The merged results must be the whole run's: every section row for row (timings aside),
    /// every figure, the datasets, the command (output folder aside), and every CSV byte for byte.
    static func expectSame(merged: URL, whole: URL) throws {
        var mergedResults = try Gate.load(merged.appendingPathComponent("results.json").path)
        var wholeResults = try Gate.load(whole.appendingPathComponent("results.json").path)
        for index in mergedResults.simulations.indices { mergedResults.simulations[index].seconds = 0 }
        for index in wholeResults.simulations.indices { wholeResults.simulations[index].seconds = 0 }
        #expect(!wholeResults.figures.isEmpty)
        let firstDifference = zip(mergedResults.figures, wholeResults.figures).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(mergedResults.figures.count == wholeResults.figures.count && firstDifference == nil,
                "figures differ: \(mergedResults.figures.count) merged, \(wholeResults.figures.count) whole, first at \(firstDifference ?? -1)")
        #expect(Gate.invocation(of: mergedResults.command) == Gate.invocation(of: wholeResults.command))
        #expect(mergedResults.shard == nil)
        let encoder = ResultsJSON.encoder()
        for (name, section) in [
            ("datasets", { (results: BenchResults) in try encoder.encode(results.datasets) }),
            ("simulations", { try encoder.encode($0.simulations) }), ("keys", { try encoder.encode($0.keyComparisons) }),
            ("sweeps", { try encoder.encode($0.sweeps) }), ("warnings", { try encoder.encode($0.memoryWarnings) }),
        ] as [(String, (BenchResults) throws -> Data)] {
            #expect(try section(mergedResults) == section(wholeResults), "\(name) differ")
        }
        let csvs = try FileManager.default.contentsOfDirectory(atPath: whole.path).filter { $0.hasSuffix(".csv") }
        #expect(!csvs.isEmpty)
        for csv in csvs {
            #expect(FileManager.default.contents(atPath: merged.appendingPathComponent(csv).path)
                    == FileManager.default.contents(atPath: whole.appendingPathComponent(csv).path), "\(csv) differs")
        }
    }

    @Test(
        "simulate, sweep and suite in 2 and 4 shards, merged in any order, equal the unsharded run",
        arguments: [
            ["simulate", "--policy", "lru,s3fifo,arc", "--memory", "2MB,8MB", "--keys", "normalized+processing,lastPathComponent"],
            ["sweep", "--policy", "lru,sieve,w-tinylfu"],
            ["suite", "--no-replay"],  // 3 datasets: with 4 shards one has nothing to do
        ])
    func merged(_ run: [String]) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let whole = folder.appendingPathComponent("whole")
        try await Self.expectSuccess(run + Self.traces + ["-o", whole.path])
        for count in [2, 4] {
            let parts = (1...count).map { folder.appendingPathComponent("\(count)-\($0)") }
            for (index, part) in parts.enumerated() {
                try await Self.expectSuccess(run + Self.traces + ["--shard", "\(index + 1)/\(count)", "-o", part.path])
            }
            let merged = folder.appendingPathComponent("merged-\(count)")
            try await Self.expectSuccess(["merge"] + parts.reversed().map(\.path) + ["-o", merged.path])
            try Self.expectSame(merged: merged, whole: whole)
        }
    }

    @Test("merge refuses parts that are not every shard of one run, naming why")
    func refusals() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = ["sweep", "--policy", "lru"] + Self.traces
        func part(_ name: String, _ extra: [String]) async throws -> String {
            let path = folder.appendingPathComponent(name).path
            try await Self.expectSuccess(run + extra + ["-o", path])
            return path
        }
        let first = try await part("1", ["--shard", "1/2"]), second = try await part("2", ["--shard", "2/2"])
        let whole = try await part("whole", [])
        let other = folder.appendingPathComponent("other").path
        try await Self.expectSuccess(["sweep", "--policy", "sieve"] + Self.traces + ["--shard", "2/2", "-o", other])
        for (parts, reason) in [
            ([first], "shard 2/2 missing"), ([first, first], "shard 1/2 is given twice"),
            ([first, whole], "is not a shard's results"), ([first, other], "shards of different runs"),
        ] {
            let output = try await BenchProcess.run(["merge"] + parts + ["--no-files"])
            #expect(output.status != 0)
            #expect(output.stderr.contains(reason), "\(output.stderr)")
        }
        try await Self.expectSuccess(["merge", second, first, "--no-files"])
        let wrongSpelling = try await BenchProcess.run(run + ["--shard", "3/2", "--no-files"])
        #expect(wrongSpelling.status == 2)
    }

    /// Runs a shell command line in `directory` with extra environment variables.
    static func shell(_ command: String, in directory: URL, environment: [String: String] = [:]) async throws {
        let status = try await BenchProcess.offPool { () -> Int32 in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", command]
            process.currentDirectoryURL = directory
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        #expect(status == 0, "\(command)")
    }

    static let run = (["sweep", "--policy", "lru,s3fifo"] + traces).joined(separator: " ")

    @Test("the Slurm array script, run as Slurm runs its tasks, merges into the whole run")
    func slurm() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = Self.project.appendingPathComponent("Examples/Sharding/slurm-shard.sh").path
        let shards = folder.appendingPathComponent("shards")
        for task in 5...7 {  // --array=5-7: three tasks, numbered from 5
            try await Self.shell("\(script) \(Self.run)", in: folder, environment: [
                "SLURM_ARRAY_TASK_ID": "\(task)", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "3",
                "IMAGECACHE_BENCH": BenchProcess.executable.path, "SHARD_RESULTS": shards.path,
            ])
        }
        let whole = folder.appendingPathComponent("whole"), merged = folder.appendingPathComponent("merged")
        try await Self.expectSuccess(Self.run.split(separator: " ").map(String.init) + ["-o", whole.path])
        try await Self.expectSuccess(["merge"] + (1...3).map { shards.appendingPathComponent("\($0)").path } + ["-o", merged.path])
        try Self.expectSame(merged: merged, whole: whole)
    }

    @Test("the GitHub Actions workflow's shard and merge steps, run as its matrix runs them, merge into the whole run")
    func githubActions() async throws {
        let workflow = try String(contentsOf: Self.project.appendingPathComponent("Examples/Sharding/github-actions.yml"), encoding: .utf8)
        let lines = workflow.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let steps = lines.filter { $0.hasPrefix("- run: .build/release/imagecache-bench") }.map { String($0.dropFirst("- run: ".count)) }
        try #require(steps.count == 2, "a shard step and a merge step")
        let matrix = try #require(lines.first { $0.hasPrefix("shard: [") })
        let shards = matrix.dropFirst("shard: [".count).dropLast().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(shards.count > 1)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let executable = BenchProcess.executable.path
        for shard in shards {
            try await Self.shell(
                steps[0].replacingOccurrences(of: ".build/release/imagecache-bench", with: executable)
                    .replacingOccurrences(of: "${{ matrix.shard }}", with: shard),
                in: folder, environment: ["RUN": Self.run])
            // upload-artifact, then download-artifact with a pattern: shards/<artifact name>/
            try await Self.shell("mkdir -p shards && mv shard-\(shard) shards/", in: folder)
        }
        try await Self.shell(steps[1].replacingOccurrences(of: ".build/release/imagecache-bench", with: executable), in: folder)
        let whole = folder.appendingPathComponent("whole")
        try await Self.expectSuccess(Self.run.split(separator: " ").map(String.init) + ["-o", whole.path])
        try Self.expectSame(merged: folder.appendingPathComponent("merged"), whole: whole)
    }
}
