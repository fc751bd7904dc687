import Foundation
import Bench
import CacheSimulation
import ImagePipeline
import Testing
import Workloads

/// Random and mutated traces and HAR files go through everything a user runs on
/// them: import, then simulate, keys, sweep, memwarn, stats and export. Each
/// input ends either in figures or in a typed error naming the file; a trap
/// anywhere would end this test process.
@Suite("Mutated inputs through every trace command")
struct EndToEndPropertyTests {
    static let cases = 150

    @Test("mutated traces end in figures or a typed error naming the file, never a trap")
    func mutatedTraces() throws {
        let crafted = try CraftedTrace.write()
        defer { CraftedTrace.remove(crafted) }
        let seed = try String(contentsOfFile: crafted, encoding: .utf8)
        var generator = SplitMix64(seed: 17)
        var outcomes = Outcomes()
        for index in 0..<Self.cases {
            let path = Self.temporary("trace-\(index).jsonl")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data(Mutator.mutateLines(seed, &generator).utf8).write(to: URL(fileURLWithPath: path))
            outcomes.record(path, try Self.runEverything(on: path))
        }
        #expect(outcomes.failures.isEmpty, "\(outcomes.failures.prefix(5))")
        // The mutations must reach both ends: some inputs read, some refused.
        #expect(outcomes.accepted > 0 && outcomes.refused > 0, "accepted \(outcomes.accepted), refused \(outcomes.refused)")
    }

    @Test("mutated HAR files, with and without bodies, sizes or URLs in one spelling, import to a trace every command takes, or end in a typed error; the HAR is never touched and a refused import leaves no trace")
    func mutatedHAR() throws {
        // Sizes known, lengths only (-1 elsewhere), or nothing at all; URLs in other spellings of one resource.
        let spellings = ["https://h0.example/p/caf%C3%A9.jpg", "https://H0.example:443/p/./caf%c3%a9.jpg", "https://h1.example/p/%7Euser/1.jpg?w=120",
                         "https://h1.example/p/~user/1.jpg?w=120", "https://h2.example/p/caf\u{E9}.jpg", "https://h2.example/p/cafe\u{301}.jpg"]
        func seed(sizes: Int) -> String {
            let entries = (0..<6).map { index in
                let size = sizes == 0 ? 1_000 * (index + 1) : -1
                let headers = sizes == 1 ? #","headers":[{"name":"Content-Length","value":"\#(2_000 * (index + 1))"}]"# : ""
                return """
                    {"startedDateTime":"2024-05-01T10:00:0\(index).250Z","time":\(40 + index),"request":{"method":"GET","url":"\(spellings[index])"},\
                    "response":{"status":200,"bodySize":\(size)\(headers),"content":{"size":\(size),"mimeType":"image/jpeg"}}}
                    """
            }
            return #"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}"
        }
        // As tools write them: a byte order mark, WebPageTest's runs and repeat views on pages,
        // content.size 0 beside a Content-Length, a size in the URL the length cannot hold, a 204
        // beacon, an HTML error page typed as a picture, a redacted body, bad base64, an SVG, a 304.
        let pages = (1...2).flatMap { run in [0, 1].map { cached in
            #"{"id":"p\#(run)\#(cached)","title":"Run \#(run), \#(cached == 0 ? "First" : "Repeat") View","_run":\#(run),"_cached":\#(cached)}"#
        } }
        let shapes = [
            (#""url":"https://w.example/a.jpg""#, #""status":200,"headers":[{"name":"Content-Length","value":"24000"}],"bodySize":0,"content":{"size":0,"mimeType":"image/jpeg"}"#),
            (#""url":"https://w.example/t.gif?w=757&h=757""#, #""status":200,"bodySize":43,"content":{"size":43,"mimeType":"image/gif"}"#),
            (#""url":"https://w.example/b.gif""#, #""status":204,"bodySize":0,"content":{"size":0,"mimeType":"image/gif"}"#),
            (#""url":"https://w.example/e.jpg""#, #""status":200,"content":{"size":30,"mimeType":"image/jpeg","text":"<html>gone</html>"}"#),
            (#""url":"https://w.example/r.jpg""#, #""status":200,"content":{"size":9000,"mimeType":"image/jpeg","text":"MANUALLY REMOVED"}"#),
            (#""url":"https://w.example/x.jpg""#, #""status":200,"content":{"size":9000,"mimeType":"image/jpeg","text":"*!","encoding":"base64"}"#),
            (#""url":"https://w.example/s.svg""#, #""status":200,"content":{"size":60,"mimeType":"image/svg+xml","text":"<svg width=\"30\" height=\"20\"></svg>"}"#),
            (#""url":"https://w.example/a.jpg""#, #""status":304,"content":{"size":0,"mimeType":"image/jpeg"}"#),
        ]
        let shaped = shapes.enumerated().map { index, shape in
            #"{"pageref":"p\#(1 + index % 2)\#(index / 4)","startedDateTime":"2024-05-01T10:0\#(index % 2):0\#(index).000Z","time":30,"request":{\#(shape.0)},"response":{\#(shape.1)}}"#
        }
        let tools = "\u{FEFF}" + #"{"log":{"version":"1.2","creator":{"name":"WebPageTest"},"pages":[\#(pages.joined(separator: ","))],"entries":[\#(shaped.joined(separator: ","))]}}"#
        let seeds = (0..<3).map(seed(sizes:)) + [tools]
        var generator = SplitMix64(seed: 29)
        var outcomes = Outcomes()
        for index in 0..<Self.cases {
            let har = Self.temporary("in-\(index).har"), trace = Self.temporary("out-\(index).jsonl")
            defer {
                try? FileManager.default.removeItem(atPath: har)
                try? FileManager.default.removeItem(atPath: trace)
            }
            let input = Data(Mutator.mutateJSON(seeds[index % seeds.count], &generator).utf8)
            try input.write(to: URL(fileURLWithPath: har))
            defer { if FileManager.default.contents(atPath: har) != input { outcomes.failures.append("\(har): the import changed its input") } }
            do {
                _ = try HARImporter.importFile(har, to: trace, generator: "property test")
            } catch let error as ImportError {
                outcomes.record(har, FileManager.default.fileExists(atPath: trace) ? .untyped("refused, yet wrote \(trace)") : .refused("\(error)"))
                continue
            } catch let error as TraceError {
                outcomes.record(har, FileManager.default.fileExists(atPath: trace) ? .untyped("refused, yet wrote \(trace)") : .refused("\(error)"))
                continue
            } catch {
                outcomes.record(har, .untyped("\(type(of: error)): \(error)"))
                continue
            }
            outcomes.record(har, try Self.runEverything(on: trace))
        }
        #expect(outcomes.failures.isEmpty, "\(outcomes.failures.prefix(5))")
        #expect(outcomes.accepted > 0 && outcomes.refused > 0, "accepted \(outcomes.accepted), refused \(outcomes.refused)")
    }

    @Test("mutated CSVs with their columns named in another order, comments and stray lines read as the same requests or end in a typed error at file:line")
    func mutatedCSV() throws {
        let rows = (0..<40).map { (time: $0, key: ($0 * 7) % 11, size: 100 + $0 % 5) }
        let canonical = "time,obj_id,obj_size\n" + rows.map { "\($0.time),\($0.key),\($0.size)" }.joined(separator: "\n") + "\n"
        let orders: [[Int]] = [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0]]
        let names = ["time", "obj_id", "obj_size"]
        func layout(_ order: [Int]) -> String {
            "# columns in another order\n" + order.map { names[$0] }.joined(separator: ",") + "\n"
                + rows.map { row in order.map { [String(row.time), String(row.key), String(row.size)][$0] }.joined(separator: ",") }.joined(separator: "\n") + "\n"
        }
        let expectedPath = Self.temporary("canonical.csv")
        defer { try? FileManager.default.removeItem(atPath: expectedPath) }
        try Data(canonical.utf8).write(to: URL(fileURLWithPath: expectedPath))
        let expected = try DelimitedTrace.read(expectedPath, format: .libCacheSimCSV)
        var generator = SplitMix64(seed: 41)
        var outcomes = Outcomes()
        for index in 0..<Self.cases {
            let path = Self.temporary("in-\(index).csv")
            defer { try? FileManager.default.removeItem(atPath: path) }
            let text = layout(orders[index % orders.count])
            // Every fifth file is left whole: it must read as the canonical one does.
            let mutated = index % 5 == 0 ? text : Mutator.mutateLines(text, &generator)
            try Data(mutated.utf8).write(to: URL(fileURLWithPath: path))
            do {
                let trace = try DelimitedTrace.read(path, format: .libCacheSimCSV)
                if index % 5 == 0, trace.fingerprints != expected.fingerprints || trace.costs != expected.costs || trace.times != expected.times {
                    outcomes.record(path, .untyped("columns in order \(orders[index % orders.count]) read as other requests"))
                } else {
                    outcomes.record(path, .accepted)
                }
            } catch {
                outcomes.record(path, error.description.hasPrefix(path) ? .refused(error.description) : .untyped("does not name the file: \(error)"))
            }
        }
        #expect(outcomes.failures.isEmpty, "\(outcomes.failures.prefix(5))")
        #expect(outcomes.accepted > 0 && outcomes.refused > 0, "accepted \(outcomes.accepted), refused \(outcomes.refused)")
    }

    @Test("imports and runs killed midway leave no output that reads as whole, and their inputs as they were")
    func killedMidway() async throws {
        let folder = Self.temporary("killed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let entries = (0..<20_000).map { index in
            #"{"startedDateTime":"2024-05-01T10:\#(String(format: "%02d", index / 1000 % 60)):\#(String(format: "%02d", index / 10 % 60)).\#(String(format: "%03d", index % 1000))Z","time":5,"request":{"url":"https://k.example/\#(index % 500).jpg"},"response":{"status":200,"bodySize":5000,"content":{"size":5000,"mimeType":"image/jpeg"}}}"#
        }
        let har = folder + "/big.har"
        let input = Data((#"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}").utf8)
        try input.write(to: URL(fileURLWithPath: har))
        // Both take seconds in a debug build, so the kills land while they work.
        let dataset = CraftedTrace.datasets.appendingPathComponent("vanilladin.jsonl.gz").path
        let datasetBytes = FileManager.default.contents(atPath: dataset)
        var generator = SplitMix64(seed: 5)
        for attempt in 0..<6 {
            let trace = folder + "/out-\(attempt).jsonl", results = folder + "/run-\(attempt)"
            let delay = 100 + Int(generator.next() % 1500)
            let kinds = [["import", "har", har, "-o", trace], ["simulate", dataset, "--policy", "lru,sieve,s3fifo", "--memory", "1MB,4MB,16MB", "-o", results]]
            for arguments in kinds {
                let process = Process()
                process.executableURL = BenchProcess.executable
                process.arguments = arguments
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                try await Task.sleep(for: .milliseconds(delay))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            // The trace is there only whole, and then it reads to its end.
            if FileManager.default.fileExists(atPath: trace) {
                var reader = try TraceReader(path: trace)
                #expect(try reader.readAll().count == 20_001, "attempt \(attempt): a cut trace under its name")
            }
            // A results folder holds results.json only when it is whole.
            if FileManager.default.fileExists(atPath: results + "/results.json") {
                #expect(throws: Never.self) { try Gate.load(results + "/results.json") }
            }
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            #expect(!names.contains { $0.hasPrefix("out-\(attempt).jsonl") && $0 != "out-\(attempt).jsonl" && !$0.hasPrefix(".") })
        }
        #expect(FileManager.default.contents(atPath: har) == input)
        #expect(FileManager.default.contents(atPath: dataset) == datasetBytes)
    }

    /// Reads the trace as each command does and runs each command's library call on it.
    static func runEverything(on path: String) throws -> Outcome {
        let workload: RecordedWorkload
        do {
            var inputs = TraceInputs()
            inputs.traces = [path]
            workload = try inputs.load(progress: ProgressLine(enabled: false))[0]
        } catch {
            let words = String(describing: error)
            return words.hasPrefix(path) ? .refused(words) : .untyped("does not name the file: \(error)")
        }
        var matrix = SimulationMatrix()
        matrix.memorySizes = [.bytes(64_000), .fraction(0.5)]
        matrix.diskSizes = [nil, .bytes(1_000_000)]
        matrix.policies = EvictionPolicyKind.allCases.filter { $0 != .nsCache }
        let rows = matrix.run([workload])
        guard rows.allSatisfy({ $0.result.hits <= Double($0.result.requests) }) else { return .untyped("more hits than requests") }
        // The space-time bound is one only if no policy beats it (zero costs once put it below LRU).
        if let beaten = rows.first(where: { row in row.bounds.map { row.result.hitRatio > $0.objectBound + 1e-9 } ?? false }) {
            return .untyped("\(beaten.policy) hit \(beaten.result.hitRatio), above the PFOO-L bound \(beaten.bounds!.objectBound)")
        }
        _ = KeyComparison.run([workload], strategies: CacheKeyStrategy.allStrategies, configuration: SimulationMatrix())
        _ = MissRatioSweep.run([workload], strategy: ReplayDefaults.keyStrategy, policies: [.lru, .s3fifo(moveToMainThreshold: 1)],
                               sizes: [.fraction(0.1), .fraction(1)])
        _ = WarningComparison.run([workload], sources: [.trace, .every(seconds: 1), .costAbove(10_000)],
                                  reactions: WarningReaction.standard, configuration: SimulationMatrix())
        do {
            _ = try TraceStatistics.of(path: path)
            let exported = path + ".oracleGeneral"
            defer { try? FileManager.default.removeItem(atPath: exported) }
            var export = ExportJob()
            export.trace = path
            export.output = exported
            _ = try export.run()
        } catch {
            return .untyped("read by load but refused by stats or export: \(error)")
        }
        return .accepted
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("icb-property-\(UUID().uuidString)-\(name)").path
    }
}

enum Outcome {
    case accepted
    case refused(String)
    case untyped(String)
}

struct Outcomes {
    var accepted = 0
    var refused = 0
    var failures: [String] = []

    mutating func record(_ path: String, _ outcome: Outcome) {
        switch outcome {
        case .accepted: accepted += 1
        case .refused: refused += 1
        case .untyped(let what): failures.append("\(path): \(what)")
        }
    }
}

/// Small, seeded edits of a valid input: the kinds of damage real files show
/// (cut, lines lost or repeated, numbers out of range, wrong types, stray bytes).
enum Mutator {
    static let extremeNumbers = ["-1", "0", "1e308", "-1e308", "9223372036854775807", "-9223372036854775808",
                                 "18446744073709551616", "20000000000000", "0.5", "NaN", "\"7\"", "null", "true", "[]", "{}"]

    static func mutateLines(_ text: String, _ generator: inout SplitMix64) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<(1 + Int(generator.next() % 3)) {
            let line = Int(generator.next() % UInt64(max(lines.count, 1)))
            switch generator.next() % 8 {
            case 0: if !lines.isEmpty { lines.remove(at: line) }
            case 1: if !lines.isEmpty { lines.insert(lines[line], at: line) }
            case 2: if lines.count > 1 { lines.swapAt(line, Int(generator.next() % UInt64(lines.count))) }
            case 3, 4: if !lines.isEmpty { lines[line] = mutateShape(lines[line], &generator) }
            case 5: if !lines.isEmpty { lines.insert(#"{"id":\#(generator.next() % 40),"t":\#(generator.next() % 5_000),"type":"cancel"}"#, at: line) }
            default: if !lines.isEmpty { lines[line] = mutateJSON(lines[line], &generator) }
            }
        }
        let joined = lines.joined(separator: "\n")
        // Now and then the file is cut short, as a copy interrupted mid-write.
        return generator.next() % 8 == 0 ? String(joined.prefix(Int(generator.next() % UInt64(joined.count + 1)))) : joined
    }

    /// A line that breaks one of the format's promises while staying valid JSON: a clock that runs
    /// back, a session skipped or renumbered, an id reused, a level or format the format lacks,
    /// a picture of 0 bytes, a URL with a stray control or replacement character.
    static func mutateShape(_ line: String, _ generator: inout SplitMix64) -> String {
        func replacing(_ pattern: String, _ with: String) -> String {
            line.replacingOccurrences(of: pattern, with: with, options: .regularExpression)
        }
        switch generator.next() % 7 {
        case 0: return replacing(#""t":[0-9]+"#, #""t":\#(generator.next() % 100)"#)
        case 1: return replacing(#""session":[0-9]+"#, #""session":\#(generator.next() % 4)"#)
        case 2: return replacing(#""id":[0-9]+"#, #""id":\#(generator.next() % 8)"#)
        case 3: return replacing(#""level":"[a-z]+""#, #""level":"\#(["severe", "Warning", "", "critical"][Int(generator.next() % 4)])""#)
        case 4: return replacing(#""format":"[a-z]+""#, #""format":"\#(["banana", "JPEG", "svg", "ico", ""][Int(generator.next() % 5)])""#)
        case 5: return replacing(#""bytes":[0-9]+"#, #""bytes":0"#)
        default: return replacing(#"\.jpg""#, #".jpg\#(["\\u0000", "\u{FFFD}", "%FF", "\\ud800"][Int(generator.next() % 4)])""#)
        }
    }

    static func mutateJSON(_ text: String, _ generator: inout SplitMix64) -> String {
        var characters = Array(text)
        guard !characters.isEmpty else { return text }
        switch generator.next() % 5 {
        case 0, 1:
            // A number replaced by an extreme one, or by another type.
            let digits = characters.indices.filter { characters[$0].isNumber }
            guard let at = digits.isEmpty ? nil : digits[Int(generator.next() % UInt64(digits.count))] else { return text }
            var start = at, end = at
            while start > 0, characters[start - 1].isNumber || characters[start - 1] == "." || characters[start - 1] == "-" { start -= 1 }
            while end + 1 < characters.count, characters[end + 1].isNumber || characters[end + 1] == "." { end += 1 }
            let replacement = extremeNumbers[Int(generator.next() % UInt64(extremeNumbers.count))]
            characters.replaceSubrange(start...end, with: Array(replacement))
        case 2:
            // A string's contents emptied or made huge.
            let quotes = characters.indices.filter { characters[$0] == "\"" }
            guard quotes.count >= 2 else { return text }
            let pair = Int(generator.next() % UInt64(quotes.count / 2)) * 2
            let (open, close) = (quotes[pair], quotes[pair + 1])
            let contents = generator.next() % 2 == 0 ? [] : Array(repeating: Character("ü"), count: 5_000)
            characters.replaceSubrange((open + 1)..<close, with: contents)
        case 3:
            // A stray byte or bracket.
            let stray: [Character] = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\u{0}", "é"]
            characters.insert(stray[Int(generator.next() % UInt64(stray.count))], at: Int(generator.next() % UInt64(characters.count)))
        default:
            // A span deleted.
            let start = Int(generator.next() % UInt64(characters.count))
            let length = min(Int(1 + generator.next() % 40), characters.count - start)
            characters.removeSubrange(start..<(start + length))
        }
        return String(characters)
    }
}
