import Foundation
import Testing
@testable import Bench
import Workloads
@testable import Bench

/// What a new user or a careless script types, each case as the user meets it: the command, its
/// exit status, the sentence it prints, and the files before and after.
@Suite("Careless input: no crash, no lost file, no hang, no wrong answer read as right")
struct CarelessInputTests {
    let directory = BenchProcess.temporaryFile("careless")
    static let trace = CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path
    static let header = #"{"app":"Vanilladin","generator":"test","modelVersion":"1","schema":1,"seed":1,"sessions":1}"#
    static func image(_ id: Int, t: Int = 1, url: String = "https://a.example/1.jpg", extra: String = "", bytes: Int = 500,
                      format: String = "jpeg", size: Int = 40) -> String {
        #"{"image":{"boxHeight":10,"boxWidth":10,"bytes":\#(bytes),"content":\#(id),"format":"\#(format)","height":\#(size),"id":\#(id),"priority":"visible","scale":1,"url":"\#(url)","width":\#(size)\#(extra)},"t":\#(t),"type":"image"}"#
    }
    static let session1 = #"{"session":1,"t":0,"type":"session"}"#

    func make() throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func file(_ name: String, _ bytes: Data) throws -> String {
        let url = try make().appendingPathComponent(name)
        try bytes.write(to: url)
        return url.path
    }

    func lines(_ name: String, _ lines: [String], header: String = Self.header) throws -> String {
        try file(name, Data(([header] + lines).joined(separator: "\n").utf8 + [0x0A]))
    }

    @Test("results folders named with one character, a non-ASCII name, or inside a folder not made yet", arguments: ["r", "é", "x/run1"])
    func oddFolderNames(_ name: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let work = try make()
        let ran = try await BenchProcess.run(["simulate", Self.trace, "--policy", "lru", "-o", name], directory: work)
        #expect(ran.status == 0 && !ran.signalled, "\(ran.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.appendingPathComponent(name + "/results.json").path))
    }

    @Test("traces that break the format's promises are refused at file:line, on every command that reads them", arguments: [
        ("backwards", [session1, image(1, t: 500), image(2, t: 100)], "back.jsonl:4: time 100 ms comes after 500 ms in the same session"),
        ("cancel-unknown", [session1, image(1), #"{"id":9,"t":2,"type":"cancel"}"#], ":4: a cancel of request 9, which no earlier request of this session"),
        ("cancel-early", [session1, #"{"id":1,"t":1,"type":"cancel"}"#, image(1, t: 2)], ":3: a cancel of request 1"),
        ("before-session", [image(1)], ":2: an event before the first session event"),
        ("duplicate-id", [session1, image(1), image(1, t: 2)], ":4: request id 1 is used twice"),
        ("level", [session1, #"{"level":"severe","t":1,"type":"memoryWarning"}"#], ":3: unknown warning level \"severe\""),
        ("format", [session1, image(1, format: "banana")], ":3: unknown image format \"banana\""),
        ("zero-bytes", [session1, image(1, bytes: 0, size: 4000)], ":3: a 4000×4000 picture read from its bytes, of 0 bytes"),
    ] as [(String, [String], String)])
    func brokenPromises(_ name: String, _ events: [String], _ message: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try lines(name == "backwards" ? "back.jsonl" : name + ".jsonl", events)
        for command in [["simulate", "--no-files"], ["stats"], ["keys", "--no-files"], ["export", "-o", directory.path + "/x.csv"]] {
            let ran = try await BenchProcess.run([command[0], path] + command.dropFirst())
            #expect(ran.status == 1 && ran.stderr.contains(message), "\(command[0]): \(ran.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/x.csv"))
    }

    @Test("sessions skipped, repeated, or numbered from 0 are refused at their line")
    func sessionNumbers() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for (events, message) in [
            ([Self.session1, #"{"session":3,"t":0,"type":"session"}"#], ":3: session 3 follows session 1"),
            ([Self.session1, Self.session1], ":3: session 1 follows session 1"),
            ([#"{"session":0,"t":0,"type":"session"}"#], ":2: the first session is numbered 0"),
        ] {
            let path = try lines("sessions.jsonl", events, header: Self.header.replacingOccurrences(of: "\"sessions\":1", with: "\"sessions\":2"))
            let ran = try await BenchProcess.run(["stats", path])
            #expect(ran.status == 1 && ran.stderr.contains(message), "\(ran.stderr)")
        }
    }

    @Test("invalid UTF-8 in a URL is refused, never made into U+FFFD (three pictures would read as one)")
    func invalidUTF8() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        var bytes = Data(([Self.header, Self.session1].joined(separator: "\n") + "\n").utf8)
        bytes += Data(Self.image(1, url: "https://a.example/a\u{1}").utf8).map { $0 == 1 ? 0xFF : $0 }
        let path = try file("utf.jsonl", bytes + [0x0A])
        let ran = try await BenchProcess.run(["simulate", path, "--no-files"])
        #expect(ran.status == 1 && ran.stderr.contains("utf.jsonl:3: image.url holds bytes that are not UTF-8"), "\(ran.stderr)")
        // A real U+FFFD is text like any other, and its own picture.
        let real = try lines("real.jsonl", [Self.session1, Self.image(1, url: "https://a.example/a\u{FFFD}")])
        #expect(try await BenchProcess.run(["stats", real]).status == 0)
    }

    @Test("empty plain traces are refused as empty JSONL is, and a trace file's own problems are named")
    func emptyAndOddFiles() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let oracle = try file("empty.oracleGeneral", Data())
        let refused = try await BenchProcess.run(["simulate", oracle, "--no-files"])
        #expect(refused.status == 1 && refused.stderr.contains("an empty file, no requests"), "\(refused.stderr)")
        #expect(try await BenchProcess.run(["simulate", oracle, "--no-files", "--allow-empty"]).status == 0)
        for (name, contents, message) in [
            ("empty.icbt", Data(), "empty.icbt: not a binary simulation trace (an empty file"),
            ("cr.jsonl", Data((Self.header + "\r" + Self.session1 + "\r").utf8), "cr.jsonl:1: lines end in a carriage return alone"),
            ("schema.jsonl", Data((Self.header.replacingOccurrences(of: "\"schema\":1", with: "\"schema\":\"1\"") + "\n" + Self.session1 + "\n").utf8),
             "schema.jsonl:1: the trace header's \"schema\" is not a whole number"),
        ] {
            let ran = try await BenchProcess.run(["stats", try file(name, contents)])
            #expect(ran.status == 1 && ran.stderr.contains(message), "\(name): \(ran.stderr)")
        }
    }

    @Test("sizes under a byte, repeated options and repeated list values are usage errors, not silently other runs", arguments: [
        (["--memory", "0.4B"], "--memory: \"0.4B\" is not a size: less than one byte"),
        (["--memory", "0.00001KB"], "less than one byte"),
        (["--policy", "lru", "--policy", "fifo"], "--policy is given more than once"),
        (["--policy", "lru,lru"], "--policy names lru twice"),
        (["--memory", "8MB,8mb"], "--memory names 8mb twice"),
        (["--device", "limit=10MB"], "must rise in that order"),
    ])
    func usageErrors(_ arguments: [String], _ message: String) async throws {
        let ran = try await BenchProcess.run(["simulate", Self.trace, "--no-files"] + arguments)
        #expect(ran.status == 2 && ran.stderr.contains(message), "\(arguments): \(ran.stderr)")
    }

    @Test("a results folder's own files are replaced; the user's files in it survive byte for byte")
    func usersFilesSurvive() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try make().appendingPathComponent("run").path
        #expect(try await BenchProcess.run(["sweep", Self.trace, "--policy", "lru", "--memory", "1MB,4MB", "-o", run]).status == 0)
        let mine = ["mydata.csv": "a,b\n1,2\n", "budget.json": "{\"limit\":1}\n", "notes.md": "# mine\n", "chart.svg": "<svg/>"]
        for (name, text) in mine { try Data(text.utf8).write(to: URL(fileURLWithPath: run + "/" + name)) }
        #expect(try await BenchProcess.run(["simulate", Self.trace, "--policy", "fifo", "-o", run]).status == 0)
        for (name, text) in mine { #expect(FileManager.default.contents(atPath: run + "/" + name) == Data(text.utf8), "\(name)") }
        #expect(!FileManager.default.fileExists(atPath: run + "/sweep.csv"), "the earlier run's own file goes")
        let listed = try #require(try Gate.load(run + "/results.json").files)
        #expect(Set(listed) == Set(try FileManager.default.contentsOfDirectory(atPath: run)).subtracting(mine.keys).subtracting([".lock"]))
    }

    @Test("two runs in one second without -o get folders of their own")
    func defaultFoldersNeverCollide() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let work = try make()
        for policy in ["lru", "fifo", "clock"] {
            #expect(try await BenchProcess.run(["simulate", Self.trace, "--policy", policy], directory: work).status == 0)
        }
        let runs = try FileManager.default.contentsOfDirectory(atPath: work.path + "/results")
        #expect(runs.count == 3, "\(runs)")
        let policies = try runs.map { try Gate.load(work.path + "/results/\($0)/results.json").simulations.first?.policy }
        #expect(Set(policies.compactMap { $0 }).count == 3)
    }

    @Test("disk-torture never opens, and never deletes in, a folder of files a disk cache did not write")
    func diskTortureForeignFolder() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let blobs = try make().appendingPathComponent("blobs")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        let blob = blobs.appendingPathComponent(String(repeating: "ab", count: 32))
        try Data("an OCI layer".utf8).write(to: blob)
        for mode in ["verify", "write"] {
            let ran = try await BenchProcess.run(["disk-torture", mode, "--directory", blobs.path, "--writes", "10"])
            #expect(ran.status == 1 && ran.stderr.contains("holds files this disk cache did not write"), "\(ran.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs.path) == [blob.lastPathComponent])
        #expect(FileManager.default.contents(atPath: blob.path) == Data("an OCI layer".utf8))
        // A folder the cache made is its own from then on.
        let own = directory.appendingPathComponent("own").path
        #expect(try await BenchProcess.run(["disk-torture", "write", "--directory", own, "--writes", "50"]).status == 0)
        #expect(try await BenchProcess.run(["disk-torture", "verify", "--directory", own]).status == 0)
    }

    @Test("fidelity --measure writes the committed targets only when asked, and never from a folder with nothing to measure")
    func fidelityTargetsKept() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let committed = CraftedTrace.datasets.appendingPathComponent("fidelity-targets.json")
        let targets = try file("targets.json", try Data(contentsOf: committed))
        let before = try Data(contentsOf: URL(fileURLWithPath: targets))
        let empty = try make().appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        for arguments in [["--measure", empty.path], ["--measure", empty.path, "--update-targets"], ["--measure", "/nonexistent"], ["--update-targets"]] {
            let ran = try await BenchProcess.run(["fidelity", Self.trace, "--targets", targets, "--no-files"] + arguments)
            #expect(ran.status == 2, "\(arguments): \(ran.stderr)")
            #expect(!ran.stderr.contains("Code="), "\(ran.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: targets)) == before)
        // Measuring one service replaces that service's targets and keeps the others'.
        let all = try JSONDecoder().decode(FidelityTargets.self, from: before)
        let one = FidelityTargets(command: "m", targets: all.targets.filter { $0.service == .aladin }.map { var target = $0; target.value += 1; return target })
        let merged = all.replacing(with: one)
        #expect(merged.targets.count == all.targets.count)
        #expect(merged.targets.filter { $0.service != .aladin } == all.targets.filter { $0.service != .aladin })
        #expect(merged.targets.filter { $0.service == .aladin } == one.targets)
    }

    @Test("serve on an address in use says so at once, naming it")
    func servePortInUse() async throws {
        let holder = try BenchProcess.Running(["serve", "--port", "0", "--json", "--stop-on-eof"])
        let line = try #require(try await holder.nextLine())
        let port = try #require(line.split(separator: ":").last.flatMap { Int($0.filter(\.isNumber)) })
        let ran = try await BenchProcess.run(["serve", "--port", String(port), "--seconds", "30"], timeout: .seconds(20))
        try holder.closeInput()
        _ = try await holder.exitStatus()
        #expect(!ran.signalled && ran.status == 1, "\(ran.status) \(ran.stderr)")
        #expect(ran.stderr.contains("cannot listen on 127.0.0.1:\(port): address already in use"), "\(ran.stderr)")
    }

    @Test("apps on a trace of no documented app says so and runs the libraries' defaults on it alone")
    func appsOnImport() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try lines("import.jsonl", [Self.session1, Self.image(1), Self.image(2, t: 2)],
                             header: Self.header.replacingOccurrences(of: "Vanilladin", with: "HAR export.har"))
        let ran = try await BenchProcess.run(["apps", path, "--live-sessions", "0", "--no-files", "--json"])
        #expect(ran.status == 0, "\(ran.stderr)")
        #expect(ran.stderr.contains("HAR export.har is not one of the five apps; only the libraries' defaults run on it"), "\(ran.stderr)")
        let results = try JSONDecoder().decode(BenchResults.self, from: Data(ran.stdout.utf8))
        #expect(results.apps == [])
        #expect(results.libraries?.map(\.library) == ["kingfisher-default", "nuke-datacache", "nuke-default", "sdwebimage-default", "urlsession-nscache"])
    }

    @Test("the gate says when the baseline was written by another version of the tool")
    func gateAcrossVersions() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try make().appendingPathComponent("run").path
        #expect(try await BenchProcess.run(["simulate", Self.trace, "--policy", "lru", "-o", run]).status == 0)
        var old = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/results.json"))) as! [String: Any]
        old["tool"] = ["version": "0.0.1"]
        let baseline = try file("old.json", try JSONSerialization.data(withJSONObject: old))
        let ran = try await BenchProcess.run(["gate", run + "/results.json", "--baseline", baseline])
        #expect(ran.status == 0 && ran.stdout.contains("the baseline was written by imagecache-bench 0.0.1, this run by imagecache-bench"), "\(ran.stdout)")
        let same = try await BenchProcess.run(["gate", run + "/results.json", "--baseline", run + "/results.json"])
        #expect(!same.stdout.contains("was written by"))
    }

    @Test("gate on a damaged results file prints one sentence, never a decoder's dump", arguments: [
        ("null", "\"figures.0.value\" is null where a number belongs"),
        ("cut", "not valid JSON"),
        ("nan", "not valid JSON"),
    ])
    func gateOnDamage(_ damage: String, _ message: String) async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try make().appendingPathComponent("run").path
        #expect(try await BenchProcess.run(["simulate", Self.trace, "--policy", "lru", "-o", run]).status == 0)
        let text = try String(contentsOfFile: run + "/results.json", encoding: .utf8)
        let damaged: String
        switch damage {
        case "null": damaged = text.replacingOccurrences(of: #"("value" : )[0-9.e+-]+"#, with: "$1null", options: .regularExpression)
        case "cut": damaged = String(text.prefix(300))
        default: damaged = text.replacingOccurrences(of: #"("value" : )[0-9.e+-]+"#, with: "$1NaN", options: .regularExpression)
        }
        let path = try file(damage + ".json", Data(damaged.utf8))
        let ran = try await BenchProcess.run(["gate", path, "--baseline", run + "/results.json"])
        #expect(ran.status == 1 && ran.stderr.contains(message), "\(ran.stderr)")
        #expect(!ran.stderr.contains("DecodingError") && !ran.stderr.contains("Context"), "\(ran.stderr)")
    }

    @Test("a trace whose name holds | or a line break keeps report.md's tables whole")
    func oddTraceNames() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["a|b.jsonl", "two\nlines.jsonl"] {
            let path = try file(name, try Data(contentsOf: URL(fileURLWithPath: Self.trace)))
            let run = directory.appendingPathComponent("run-\(name.count)").path
            #expect(try await BenchProcess.run(["simulate", path, "--policy", "lru,fifo", "-o", run]).status == 0)
            let report = try String(contentsOfFile: run + "/report.md", encoding: .utf8)
            let table = report.split(separator: "\n").filter { $0.hasPrefix("| ") }
            let columns = Set(table.map { line in line.replacingOccurrences(of: "\\|", with: "").filter { $0 == "|" }.count })
            #expect(!table.isEmpty && columns.count == 1, "\(name): \(table.prefix(4))")
        }
    }

    @Test("HAR dates: a day a month lacks and a missing zone are refused, naming why; a size past 1 TiB too")
    func harDates() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        func har(date: String, size: String = "900") -> String {
            #"{"log":{"version":"1.2","entries":[{"startedDateTime":"\#(date)","time":5,"request":{"url":"https://a.example/1.jpg"},"response":{"status":200,"bodySize":900,"content":{"size":\#(size),"mimeType":"image/jpeg"}}}]}}"#
        }
        for (text, message) in [
            (har(date: "2024-02-30T10:00:00Z"), "day 30 is not a day of 2024-02, which has 29"),
            (har(date: "2023-02-29T10:00:00Z"), "day 29 is not a day of 2023-02, which has 28"),
            (har(date: "2024-02-10T10:00:00.000"), "no time zone"),
            (har(date: "2024-02-10T10:00:00Z", size: "4611686018427387904"), "is too large for this field"),
        ] {
            let path = try file("d.har", Data(text.utf8))
            let ran = try await BenchProcess.run(["import", "har", path, "-o", directory.path + "/t.jsonl"])
            #expect(ran.status == 1 && ran.stderr.contains(message), "\(ran.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["d.har"], "nothing written")
        }
    }

    @Test("a refused run leaves no folder it made and no unfinished file; an interrupted import leaves no .partial")
    func nothingLeftBehind() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let work = try make()
        let refused = try await BenchProcess.run(["merge", Self.trace, Self.trace, "-o", "merged"], directory: work)
        #expect(refused.status != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "the folder it made is gone")
        // An import reading a HAR from a pipe that has not ended is mid-import, its trace unfinished.
        let pipe = work.appendingPathComponent("in.har").path
        #expect(mkfifo(pipe, 0o600) == 0)
        let running = Process()
        running.executableURL = BenchProcess.executable
        running.arguments = ["import", "har", pipe, "-o", work.path + "/out.jsonl"]
        running.standardOutput = FileHandle.nullDevice
        running.standardError = FileHandle.nullDevice
        try running.run()
        let writer = try await BenchProcess.offPool { try FileHandle(forWritingTo: URL(fileURLWithPath: pipe)) }
        let entry = #"{"startedDateTime":"2024-05-01T10:00:00Z","time":5,"request":{"url":"https://a.example/1.jpg"},"response":{"status":200,"bodySize":900,"content":{"size":900,"mimeType":"image/jpeg"}}}"#
        // More than the importer reads at once (1 MiB), so it is at work on them when stopped.
        try writer.write(contentsOf: Data((#"{"log":{"version":"1.2","entries":["# + String(repeating: entry + ",", count: 8_000)).utf8))
        for _ in 0..<100 where !(try FileManager.default.contentsOfDirectory(atPath: work.path).contains { $0.contains(".partial-") }) {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).contains { $0.contains(".partial-") }, "mid-import")
        running.terminate()
        try await BenchProcess.offPool { running.waitUntilExit() }
        try writer.close()
        #expect(running.terminationReason == .uncaughtSignal && running.terminationStatus == SIGTERM, "ended by the signal, as it would have been")
        let left = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0.contains("partial") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test("keys, recommend and memwarn on plain traces (oracleGeneral by name or by its bytes, .icbt) say what they read, as for csv")
    func plainTracesOnRecordedCommands() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let oracle = try make().appendingPathComponent("t.oracleGeneral").path
        #expect(try await BenchProcess.run(["export", Self.trace, "-o", oracle]).status == 0)
        let unnamed = try file("t.bin", try Data(contentsOf: URL(fileURLWithPath: oracle)))
        for path in [oracle, unnamed] {
            for command in [["keys"], ["recommend", "--memory-budget", "64MB"], ["memwarn"]] {
                let ran = try await BenchProcess.run([command[0], path, "--no-files"] + command.dropFirst())
                #expect(ran.status == 2 && ran.stderr.contains("this command reads recorded traces"), "\(command[0]) \(path): \(ran.stderr)")
            }
        }
    }

    @Test("every writing command, run into a folder of the user's files, leaves each of them byte for byte")
    func everyWriterSparesTheFolder() async throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        // An earlier run's folder, then the user's own files put beside its results.
        let folder = try make().appendingPathComponent("mine").path
        #expect(try await BenchProcess.run(["simulate", Self.trace, "--policy", "fifo", "-o", folder]).status == 0)
        let mine = ["mydata.csv": "a,b\n", "budget.json": "{}\n", "notes.md": "# my notes\n", "curve.svg": "<svg/>",
                    "plot.gp": "plot 1\n", "points.dat": "1 2\n", "trace.jsonl": "not yours\n"]
        for (name, text) in mine { try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        let image = directory.appendingPathComponent("img.jpg").path
        #expect(try await BenchProcess.run(["synth", "--width", "64", "--height", "48", "-o", image]).status == 0)
        let har = try file("one.har", Data(#"{"log":{"version":"1.2","entries":[{"startedDateTime":"2024-05-01T10:00:00Z","time":5,"request":{"url":"https://a.example/1.jpg"},"response":{"status":200,"bodySize":900,"content":{"size":900,"mimeType":"image/jpeg"}}}]}}"#.utf8))
        let runs: [[String]] = [
            ["simulate", Self.trace, "--policy", "lru", "-o", folder],
            ["keys", Self.trace, "-o", folder],
            ["sweep", Self.trace, "--policy", "lru", "--memory", "1MB,2MB", "-o", folder],
            ["memwarn", Self.trace, "-o", folder],
            ["recommend", Self.trace, "--memory-budget", "64MB", "-o", folder],
            ["import", "har", har, "-o", folder + "/imported.jsonl"],
            ["export", Self.trace, "-o", folder + "/exported.oracleGeneral"],
            ["synth-trace", "--requests", "100", "--objects", "10", "-o", folder + "/z.icbt"],
            ["synth", "--width", "32", "--height", "32", "-o", folder + "/s.jpg"],
            ["thumbnail", image, "--width", "16", "-o", folder + "/t.jpg"],
            ["record", "--app", "vanilladin", "--sessions", "1", "-o", folder + "/recorded.jsonl"],
        ]
        for arguments in runs {
            let ran = try await BenchProcess.run(arguments)
            #expect(ran.status == 0, "\(arguments[0]): \(ran.stderr)")
            for (name, text) in mine {
                #expect(FileManager.default.contents(atPath: folder + "/" + name) == Data(text.utf8), "\(arguments[0]) changed \(name)")
            }
        }
        // A results.json of the user's (not a run's) makes a folder of other files: refused, untouched.
        let theirs = directory.appendingPathComponent("theirs").path
        try FileManager.default.createDirectory(atPath: theirs, withIntermediateDirectories: true)
        try Data(#"{"mine":true}"#.utf8).write(to: URL(fileURLWithPath: theirs + "/results.json"))
        let refused = try await BenchProcess.run(["simulate", Self.trace, "-o", theirs])
        #expect(refused.status == 2 && refused.stderr.contains("the folder holds other files"), "\(refused.stderr)")
        #expect(FileManager.default.contents(atPath: theirs + "/results.json") == Data(#"{"mine":true}"#.utf8))
    }
}
