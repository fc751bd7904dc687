import CacheSimulation
import Foundation
import ImagePipeline
import PipelineTesting
import Testing
import Workloads
@testable import Bench

/// A user's own data and results folders: nothing read is ever touched, nothing cut reads
/// as whole, and every refusal says what, where and what is accepted.
@Suite("Your data in, nothing lost: results folders, traces from pipes and headers, checked merges")
struct UserDataSafetyTests {
    let directory = BenchProcess.temporaryFile("safety").path

    func folder(_ name: String) throws -> String {
        let path = directory + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func write(_ path: String, _ text: String) throws -> String {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A csv of 60 requests over 12 objects of 100 bytes, libCacheSim's columns.
    static let csv = "time,obj_id,obj_size\n" + (0..<60).map { "\($0),\(($0 * 7) % 12),100" }.joined(separator: "\n") + "\n"
    static let simulate = ["--policy", "lru", "--memory", "500B", "--disk", "none", "--warnings", "none", "--max-entry", "100%"]

    /// Every file of a folder and its bytes (but the lock, which holds the last run's process id).
    func snapshot(_ path: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: path) where name != ".lock" {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            files[name] = FileManager.default.contents(atPath: path + "/" + name)
        }
        return files
    }

    @Test("an -o that is or holds an input is refused before anything is removed, for simulate and merge")
    func outputHoldingInput() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try folder("run")
        let trace = try write(run + "/trace.csv", Self.csv)
        // An earlier run in the folder, then the trace placed beside its results.
        let first = try await BenchProcess.run(["simulate", trace, "-o", try folder("earlier")] + Self.simulate)
        #expect(first.status == 0, "\(first.stderr)")
        for (name, data) in try snapshot(directory + "/earlier") { try data.write(to: URL(fileURLWithPath: run + "/" + name)) }
        let before = try snapshot(run)
        let output = try await BenchProcess.run(["simulate", trace, "-o", run] + Self.simulate)
        #expect(output.status == 2)
        #expect(output.stderr.contains("holds an input of this run (\(trace))"), "\(output.stderr)")
        #expect(try snapshot(run) == before)

        let shards = try (1...2).map { try folder("shard\($0)") }
        for (index, shard) in shards.enumerated() {
            let part = try await BenchProcess.run(["simulate", trace, "--memory", "300B,600B", "--shard", "\(index + 1)/2", "-o", shard, "--disk", "none"])
            #expect(part.status == 0, "\(part.stderr)")
        }
        let shardBefore = try snapshot(shards[0])
        let merge = try await BenchProcess.run(["merge"] + shards + ["-o", shards[0]])
        #expect(merge.status == 2)
        #expect(merge.stderr.contains("is an input of this run"), "\(merge.stderr)")
        #expect(try snapshot(shards[0]) == shardBefore)
        let mergeFile = try await BenchProcess.run(["merge", shards[0] + "/results.json", shards[1], "-o", shards[0]])
        #expect(mergeFile.status == 2, "\(mergeFile.stderr)")
        #expect(try snapshot(shards[0]) == shardBefore)
    }

    @Test("a second run into a folder another run holds is refused with that run's process id")
    func lockedFolder() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = try write(directory + "/trace.csv", Self.csv)
        let run = try folder("run")
        var holder: ResultsFolder? = try ResultsFolder(claiming: run, inputs: [trace])
        let output = try await BenchProcess.run(["simulate", trace, "-o", run] + Self.simulate)
        #expect(output.status == 2)
        #expect(output.stderr.contains("another run is writing its results here (process \(getpid()))"), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: run + "/results.json"))
        #expect(holder != nil)
        holder = nil
        // Once the holder is gone the folder is free again.
        let again = try await BenchProcess.run(["simulate", trace, "-o", run] + Self.simulate)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// Whether this process (and so the tool it starts, built alike) runs under ThreadSanitizer,
    /// whose runtime needs files of a few MiB: under a `ulimit -f` small enough to fail a
    /// results.json it dies with SIGBUS before the tool runs, so the limit cannot be given room.
    static let underThreadSanitizer = dlsym(nil, "__tsan_acquire") != nil

    @Test("a write that fails (file-size limit) leaves the earlier run whole and says so in one sentence",
          .disabled(if: underThreadSanitizer, "ThreadSanitizer's runtime cannot start under a file-size limit of 1 KiB; fullDisk covers the failed write with an injected error"))
    func failedWriteKeepsEarlierRun() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = try write(directory + "/trace.csv", Self.csv)
        let run = try folder("run")
        let first = try await BenchProcess.run(["sweep", trace, "--policy", "lru", "--memory", "300B,600B", "-o", run])
        #expect(first.status == 0, "\(first.stderr)")
        let before = try snapshot(run)
        #expect(before["sweep.csv"] != nil && before["results.json"] != nil)
        // 1 KiB is less than results.json: the write fails with EFBIG.
        let limited = try await BenchProcess.run([
            "-c", "ulimit -f 1; exec \"$0\" \"$@\"", BenchProcess.executable.path, "simulate", trace, "-o", run,
        ] + Self.simulate, executable: "/bin/bash")
        #expect(limited.status == 1)
        #expect(limited.stderr.contains("cannot write: file too large"), "\(limited.stderr)")
        #expect(!limited.stderr.contains("NSCocoaErrorDomain"))
        #expect(try snapshot(run) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: run).allSatisfy { !$0.hasPrefix(".incoming") })
        // A run that succeeds replaces the earlier run's files, the ones it does not write too.
        let next = try await BenchProcess.run(["simulate", trace, "-o", run] + Self.simulate)
        #expect(next.status == 0, "\(next.stderr)")
        let after = try snapshot(run)
        #expect(after["sweep.csv"] == nil && after["simulations.csv"] != nil)
        let results = try Gate.load(run + "/results.json")
        #expect(results.inputs?.map(\.path) == ["trace.csv"])  // the name, never the folders it is in
        #expect(results.inputs?.first?.bytes == Self.csv.utf8.count)
    }

    @Test("publishing on a full disk leaves the folder as it was and names the file")
    func fullDisk() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try folder("run")
        let earlier = Data(#"{"schema":1,"command":"imagecache-bench simulate t.csv","createdAt":"2026-11-01T00:00:00Z","files":["results.json"]}"#.utf8)
        try earlier.write(to: URL(fileURLWithPath: run + "/results.json"))
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.set { $0.writeError = ENOSPC }
        let folder = try ResultsFolder(claiming: run, inputs: [], fileSystem: fileSystem)
        #expect {
            try folder.publish([("simulations.csv", Data("a,b\n".utf8)), ("results.json", Data("{}".utf8))])
        } throws: { error in
            (error as? ResultsFolder.FolderError)?.description == "\(run)/simulations.csv: cannot write: no space left on device"
        }
        #expect(try snapshot(run) == ["results.json": earlier])
        #expect(try FileManager.default.contentsOfDirectory(atPath: run).sorted() == [".lock", "results.json"])
    }

    @Test("a trace writer dropped before close leaves no file, and close puts the whole trace in place")
    func traceWriterIsAtomic() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let place = try folder("traces")
        for name in ["cut.jsonl", "cut.jsonl.gz"] {
            do {
                let writer = try TraceWriter(path: place + "/" + name, header: TraceHeader(app: "t", modelVersion: "1", seed: 0, sessions: 1, generator: "test"))
                try writer.append(TraceEvent(time: 0, .session(1)))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: place).isEmpty, "\(name)")
        }
        let writer = try TraceWriter(path: place + "/whole.jsonl", header: TraceHeader(app: "t", modelVersion: "1", seed: 0, sessions: 1, generator: "test"))
        try writer.append(TraceEvent(time: 0, .session(1)))
        #expect(!FileManager.default.fileExists(atPath: place + "/whole.jsonl"))
        try writer.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: place) == ["whole.jsonl"])
    }

    @Test("import and export refuse to write over the file they read")
    func importOverInput() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let har = try write(directory + "/x.har", #"{"log":{"version":"1.2","entries":[]}}"#)
        let output = try await BenchProcess.run(["import", "har", har, "-o", har])
        #expect(output.status == 1)
        #expect(output.stderr.contains("is the input \(har)"), "\(output.stderr)")
        #expect(FileManager.default.contents(atPath: har) == Data(#"{"log":{"version":"1.2","entries":[]}}"#.utf8))
    }

    @Test("a csv's named columns are read by name in any order, # comments are skipped, and a pipe reads as the file does")
    func headersCommentsAndPipes() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rows = (0..<60).map { (time: $0, key: ($0 * 7) % 12, size: 100 + ($0 * 7) % 12) }
        let canonical = try write(directory + "/canonical.csv", "time,obj_id,obj_size\n" + rows.map { "\($0.time),\($0.key),\($0.size)" }.joined(separator: "\n"))
        let reordered = try write(directory + "/reordered.csv", "# exported by hand\nsize,time,obj_id\n"
            + rows.map { "\($0.size),\($0.time),\($0.key)" }.joined(separator: "\n") + "\n# end\n")
        let expected = try DelimitedTrace.read(canonical, format: .libCacheSimCSV)
        let read = try DelimitedTrace.read(reordered, format: .libCacheSimCSV)
        #expect(read.count == 60 && read.keyCount == 12)
        #expect(read.fingerprints == expected.fingerprints && read.costs == expected.costs && read.times == expected.times)
        // Explicit --columns still win over the header.
        var byPosition = try DelimitedTraceFormat.libCacheSimCSV.with(columns: "key=1,time=2,size=3")
        byPosition.timeUnit = .s
        #expect(try DelimitedTrace.read(reordered, format: byPosition).keyCount == 12)  // sizes 100…111 as keys
        #expect(throws: TraceError.self) { try DelimitedTrace.read(try write(directory + "/nokey.csv", "time,size\n1,2\n"), format: .libCacheSimCSV) }

        let text = try write(directory + "/ids.txt", "# object ids\n" + rows.map { "\($0.key)" }.joined(separator: "\n") + "\n#trailing\n")
        #expect(try DelimitedTrace.read(text, format: .libCacheSimText).count == 60)

        for (file, format) in [(reordered, "csv"), (CraftedTrace.datasets.appendingPathComponent("mymarket.jsonl.gz").path, "jsonl")] {
            let direct = try await BenchProcess.run(["stats", file, "--json", "--trace-format", format])
            let piped = try await BenchProcess.run(
                ["-c", "cat \"$1\" | \"$0\" stats /dev/stdin --json --trace-format \(format)", BenchProcess.executable.path, file], executable: "/bin/bash")
            #expect(direct.status == 0 && piped.status == 0, "\(direct.stderr) \(piped.stderr)")
            let name = (file as NSString).lastPathComponent
            #expect(direct.stdout.replacingOccurrences(of: "\"\(name)\"", with: "\"stdin\"") == piped.stdout, "\(format)")
        }
        let device = try await BenchProcess.run(["stats", "/dev/zero", "--trace-format", "oracleGeneral"])
        #expect(device.status == 1)
        #expect(device.stderr.contains("/dev/zero: a device, not a trace file"), "\(device.stderr)")
    }

    @Test("merge refuses a shard whose input changed or whose figures cannot be; gate refuses a ratio outside [0, 1]")
    func checkedMerge() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let trace = try write(directory + "/trace.csv", Self.csv)
        let shards = try (1...2).map { try folder("shard\($0)") }
        for (index, shard) in shards.enumerated() {
            if index == 1 { _ = try write(trace, Self.csv.replacingOccurrences(of: ",100\n", with: ",90\n")) }
            let part = try await BenchProcess.run(["simulate", trace, "--memory", "300B,600B", "--shard", "\(index + 1)/2", "-o", shard, "--disk", "none"])
            #expect(part.status == 0, "\(part.stderr)")
        }
        let changed = try await BenchProcess.run(["merge"] + shards + ["--no-files"])
        #expect(changed.status == 2)
        #expect(changed.stderr.contains("trace.csv changed between the shards"), "\(changed.stderr)")

        // Shard 2 again on the same file, then a damaged hit ratio in it.
        let part = try await BenchProcess.run(["simulate", trace, "--memory", "300B,600B", "--shard", "1/2", "-o", shards[0], "--disk", "none"])
        #expect(part.status == 0, "\(part.stderr)")
        let merged = try await BenchProcess.run(["merge"] + shards + ["--no-files", "--json"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let file = shards[1] + "/results.json"
        var results = try Gate.load(file)
        results.simulations[0].result.hits = Double(results.simulations[0].result.requests) * 1.5
        try ResultsJSON.encoder().encode(results).write(to: URL(fileURLWithPath: file))
        let damaged = try await BenchProcess.run(["merge"] + shards + ["--no-files"])
        #expect(damaged.status == 2)
        #expect(damaged.stderr.contains("outside what it can be (a ratio from 0 to 1)"), "\(damaged.stderr)")

        results.deriveFigures()
        try ResultsJSON.encoder().encode(results).write(to: URL(fileURLWithPath: file))
        let gate = try await BenchProcess.run(["gate", file, "--baseline", shards[0] + "/results.json", "--shared-figures-only"])
        #expect(gate.status == 1)
        #expect(gate.stderr.contains("hitRatio is 1.5, outside what it can be"), "\(gate.stderr)")
    }

    @Test("refusals name the option, the value and what is accepted, and exit 2", arguments: [
        (["--memory", "8EiB"], "--memory: \"8EiB\" is not a size: unknown unit \"eib\""),
        (["--memory", "9223372036854775807B"], "larger than the largest size taken, 4EiB"),
        (["--memory", "0%"], "a share must be above 0%"),
        (["--memory", "0B"], "a size must be above 0"),
        (["--disk=-5MB"], "--disk: \"-5MB\" is not a size: a size must be above 0"),
        (["--warnings", "every:0s"], "--warnings: warning source \"every:0s\": the period must be above 0 s"),
        (["--shard", "3/2"], "i, the part, is from 1 to n (2)"),
        (["--shard", "x"], "--shard is i/n"),
        (["--columns", "key=2,key=3", "--trace-format", "csv"], "key is given twice"),
    ])
    func refusals(_ arguments: [String], _ message: String) async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["simulate", trace, "--no-files"] + arguments)
        #expect(output.status == 2, "\(arguments): \(output.stderr)")
        #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
    }

    @Test("a shard with no units of the run says how many units there are")
    func emptyShard() async throws {
        let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let output = try await BenchProcess.run(["simulate", trace, "--no-files", "--memory", "1MB", "--shard", "1/1000", "--policy", "lru"])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stderr.contains("this run has 1 unit ((trace, key strategy, memory size) groups) for 1000 parts"), "\(output.stderr)")
    }

    /// A HAR of `count` requests over 20 images of 50 KB, with no bodies; `sized` gives each a length.
    static func harWithoutBodies(count: Int, sized: Bool) -> String {
        let entries = (0..<count).map { index in
            let size = sized ? 50_000 : -1
            return """
                {"startedDateTime":"2024-05-01T10:00:\(String(format: "%02d", index % 60)).\(String(format: "%03d", index))Z","time":5,
                 "request":{"method":"GET","url":"https://img.example/\(index % 20).jpg"},
                 "response":{"status":200,"bodySize":\(size),"content":{"size":\(size),"mimeType":"image/jpeg"}}}
                """
        }
        return #"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}"
    }

    @Test("a HAR without bodies is priced from the lengths, and one with no sizes at all is refused until --assume-pixels")
    func harWithoutBodies() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sized = try write(directory + "/sized.har", Self.harWithoutBodies(count: 200, sized: true))
        let imported = try await BenchProcess.run(["import", "har", sized, "-o", directory + "/sized.jsonl"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("sized by: length 200"), "\(imported.stdout)")
        let options = ["--policy", "lru", "--disk", "none", "--warnings", "none", "--no-files", "--json", "--no-bounds"]
        let small = try await BenchProcess.run(["simulate", directory + "/sized.jsonl", "--memory", "1KB", "--max-entry", "100%"] + options)
        #expect(small.status == 0, "\(small.stderr)")
        let results = try JSONDecoder().decode(BenchResults.self, from: Data(small.stdout.utf8))
        // 20 decoded pictures of about 200k pixels: none fits 1 KB, so nothing hits memory.
        #expect(results.simulations.first?.result.hitRatio == 0)

        let unsized = try write(directory + "/unsized.har", Self.harWithoutBodies(count: 40, sized: false))
        let importUnsized = try await BenchProcess.run(["import", "har", unsized, "-o", directory + "/unsized.jsonl"])
        #expect(importUnsized.status == 0, "\(importUnsized.stderr)")
        #expect(importUnsized.stdout.contains("sized by: unknown 40"), "\(importUnsized.stdout)")
        let refused = try await BenchProcess.run(["simulate", directory + "/unsized.jsonl", "--memory", "1KB"] + options)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("40 of 40 image requests have no known size"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--assume-pixels WxH"))
        let assumed = try await BenchProcess.run(["simulate", directory + "/unsized.jsonl", "--memory", "1KB", "--assume-pixels", "100x100", "--max-entry", "100%"] + options)
        #expect(assumed.status == 0, "\(assumed.stderr)")
        let assumedResults = try JSONDecoder().decode(BenchResults.self, from: Data(assumed.stdout.utf8))
        #expect(assumedResults.simulations.first?.result.hitRatio == 0)
        let bad = try await BenchProcess.run(["simulate", directory + "/unsized.jsonl", "--assume-pixels", "100"] + options)
        #expect(bad.status == 2 && bad.stderr.contains("--assume-pixels is WxH"), "\(bad.stderr)")
    }

    @Test("one URL identity by bytes: spellings of one resource are one picture, Unicode forms are two, under every key strategy")
    func urlIdentity() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift's String equality: canonical equivalence
        let spellings = [
            ["https://u.example/p/%C3%BC.jpg", "https://u.example/p/\u{FC}.jpg"],
            ["https://u.example/%7Euser/a.jpg", "https://U.EXAMPLE:443/./%7euser/a.jpg", "https://u.example/~user/a.jpg"],
            ["https://u.example/q/a%2fb.jpg", "https://u.example/q/a%2Fb.jpg"],
            ["https://u.example/n/\(nfc).jpg"], ["https://u.example/n/\(nfd).jpg"],
        ]
        let identities = spellings.map { Set($0.map { URLNormalizer.resourceIdentity.normalize($0) }) }
        #expect(identities.allSatisfy { $0.count == 1 })
        #expect(identities[3] != identities[4])
        #expect(URLNormalizer.resourceIdentity.normalize("https://u.example/a?b=2&a=1#x") == "https://u.example/a?b=2&a=1")

        var entries: [String] = []
        for round in 0..<3 {
            for (group, urls) in spellings.enumerated() {
                for (index, url) in urls.enumerated() {
                    let second = round * 20 + group * 3 + index
                    entries.append("""
                        {"startedDateTime":"2024-05-01T10:00:\(String(format: "%02d", second)).000Z","time":5,"request":{"method":"GET","url":"\(url)"},\
                        "response":{"status":200,"bodySize":4000,"content":{"size":4000,"mimeType":"image/jpeg"}}}
                        """)
                }
            }
        }
        let har = try write(directory + "/spellings.har", #"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}")
        let trace = directory + "/spellings.jsonl"
        let imported = try await BenchProcess.run(["import", "har", har, "-o", trace])
        #expect(imported.status == 0, "\(imported.stderr)")
        let workload = try RecordedWorkload.load(path: trace)
        #expect(workload.urls.count == 9)  // NFC and NFD are two URLs, not one
        #expect(Set(workload.requests.map(\.content)).count == 5)  // five pictures

        let keys = try await BenchProcess.run(["keys", trace, "--no-files", "--json", "--memory", "64MB"])
        #expect(keys.status == 0, "\(keys.stderr)")
        let results = try JSONDecoder().decode(BenchResults.self, from: Data(keys.stdout.utf8))
        #expect(results.keyComparisons.count == CacheKeyStrategy.allStrategies.count)
        for row in results.keyComparisons {
            #expect(row.wrongImages == 0, "\(row.keyStrategy): \(row.wrongImages) wrong images among spellings of one picture")
        }
        for strategy in CacheKeyStrategy.allStrategies {
            let a = strategy.key(for: spellings[3][0]), b = strategy.key(for: spellings[4][0])
            #expect(!a.utf8.elementsEqual(b.utf8) && a.utf8.allSatisfy { $0 < 0x80 }, "\(strategy): \(a) \(b)")
        }
        #expect(CacheKeyStrategy(.lastPathComponent).key(for: spellings[0][0]) == CacheKeyStrategy(.lastPathComponent).key(for: spellings[0][1]))
    }
}
