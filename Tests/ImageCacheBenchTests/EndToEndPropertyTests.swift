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

    @Test("mutated HAR files import to a trace every command takes, or end in a typed error, never a trap")
    func mutatedHAR() throws {
        let entries = (0..<6).map { index in
            """
            {"startedDateTime":"2024-05-01T10:00:0\(index).250Z","time":\(40 + index),"request":{"method":"GET","url":"https://h\(index % 3).example/p/\(index % 4).jpg?w=\(index)"},\
            "response":{"status":200,"bodySize":\(1_000 * (index + 1)),"content":{"size":\(1_000 * (index + 1)),"mimeType":"image/jpeg"}}}
            """
        }
        let seed = #"{"log":{"version":"1.2","entries":["# + entries.joined(separator: ",") + "]}}"
        var generator = SplitMix64(seed: 29)
        var outcomes = Outcomes()
        for index in 0..<Self.cases {
            let har = Self.temporary("in-\(index).har"), trace = Self.temporary("out-\(index).jsonl")
            defer {
                try? FileManager.default.removeItem(atPath: har)
                try? FileManager.default.removeItem(atPath: trace)
            }
            try Data(Mutator.mutateJSON(seed, &generator).utf8).write(to: URL(fileURLWithPath: har))
            do {
                _ = try HARImporter.importFile(har, to: trace, generator: "property test")
            } catch let error as ImportError {
                outcomes.record(har, .refused("\(error)"))
                continue
            } catch let error as TraceError {
                outcomes.record(har, .refused("\(error)"))
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

    /// Reads the trace as each command does and runs each command's library call on it.
    static func runEverything(on path: String) throws -> Outcome {
        let workload: RecordedWorkload
        do {
            workload = try RecordedWorkload.load(path: path)
        } catch {
            return error.description.hasPrefix(path) ? .refused(error.description) : .untyped("does not name the file: \(error)")
        }
        var matrix = SimulationMatrix()
        matrix.memorySizes = [.bytes(64_000), .fraction(0.5)]
        matrix.diskSizes = [nil, .bytes(1_000_000)]
        matrix.policies = EvictionPolicyKind.allCases.filter { $0 != .nsCache }
        let rows = matrix.run([workload])
        guard rows.allSatisfy({ $0.result.hits <= Double($0.result.requests) }) else { return .untyped("more hits than requests") }
        _ = KeyComparison.run([workload], strategies: CacheKeyStrategy.allStrategies, configuration: SimulationMatrix())
        _ = MissRatioSweep.run([workload], strategy: ReplayDefaults.keyStrategy, policies: [.lru, .s3fifo(moveToMainThreshold: 1)],
                               sizes: [.fraction(0.1), .fraction(1)])
        _ = WarningComparison.run([workload], sources: [.trace, .every(seconds: 1), .costAbove(10_000)],
                                  reactions: WarningReaction.standard, configuration: SimulationMatrix())
        do {
            _ = try TraceStatistics.of(path: path)
            let exported = path + ".oracleGeneral"
            defer { try? FileManager.default.removeItem(atPath: exported) }
            _ = try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .oracleGeneral).export(path, to: exported)
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
            switch generator.next() % 6 {
            case 0: if !lines.isEmpty { lines.remove(at: line) }
            case 1: if !lines.isEmpty { lines.insert(lines[line], at: line) }
            case 2: if lines.count > 1 { lines.swapAt(line, Int(generator.next() % UInt64(lines.count))) }
            default: if !lines.isEmpty { lines[line] = mutateJSON(lines[line], &generator) }
            }
        }
        let joined = lines.joined(separator: "\n")
        // Now and then the file is cut short, as a copy interrupted mid-write.
        return generator.next() % 8 == 0 ? String(joined.prefix(Int(generator.next() % UInt64(joined.count + 1)))) : joined
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
