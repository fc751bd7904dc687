import Foundation
import Testing

/// Every numeric option of every command, found in the parser's own description of the command
/// line (so an option added later is tried too), given what a careless script types: negative,
/// not a number, infinite, past any range. Each must be refused as a usage error (exit 2) that
/// names the option, before any work and with nothing written; a value an option documents as
/// taken ("any whole number") may run, and must end by itself without a crash.
@Suite("numeric options: every bad value refused by name")
struct NumericOptionTests {
    static let values = ["-1", "nan", "1e400", "9223372036854775807"]

    /// One option of one command.
    struct Option: Sendable, CustomStringConvertible {
        let command: [String]
        let name: String
        let help: String
        var description: String { (command + ["--" + name]).joined(separator: " ") }
    }

    /// What each command needs to get as far as checking its options: its required arguments.
    /// A command missing here fails the test, so a new command is tried as soon as it exists.
    static func required(_ command: [String], inputs: Inputs) -> [String]? {
        switch command {
        case ["suite"], ["simulate"], ["keys"], ["sweep"], ["memwarn"], ["apps"], ["recommend"], ["fidelity"], ["replay"], ["stats"]:
            [inputs.trace]
        case ["stress"], ["thumbnails"], ["leak-check"], ["serve"], ["hostile"]: []
        case ["gate"]: [inputs.results, "--baseline", inputs.results]
        case ["merge"]: [inputs.results, inputs.results]
        case ["record"]: ["--app", "vanilladin", "-o", inputs.output]
        case ["import", "har"]: [inputs.har, "-o", inputs.output]
        case ["import", "api"]: [inputs.har, "-o", inputs.output]
        case ["export"], ["calibrate"]: [inputs.trace, "-o", inputs.output]
        case ["synth-trace"]: ["-o", inputs.output]
        case ["thumbnail"]: [inputs.image]
        case ["synth"]: ["-o", inputs.output]
        case ["disk-torture"]: ["verify", "--directory", inputs.output]
        default: nil
        }
    }

    struct Inputs {
        let trace: String, results: String, har: String, image: String, output: String
    }

    /// Every option that takes a value, by command, from `--experimental-dump-help`.
    static func allOptions() async throws -> [Option] {
        let dump = try await BenchProcess.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var found: [Option] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            for argument in command["arguments"] as? [[String: Any]] ?? [] where argument["kind"] as? String == "option" {
                guard let names = argument["names"] as? [[String: Any]],
                      let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String else { continue }
                found.append(Option(command: path, name: long, help: argument["abstract"] as? String ?? ""))
            }
            for sub in command["subcommands"] as? [[String: Any]] ?? [] {
                guard let name = sub["commandName"] as? String, name != "help" else { continue }
                walk(sub, path + [name])
            }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return found
    }

    @Test("negative, NaN, infinite and too-large values: exit 2 naming the option, nothing written")
    func refused() async throws {
        let scratch = BenchProcess.temporaryFile("numeric")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let datasets = CraftedTrace.datasets
        let trace = datasets.appendingPathComponent("vanilladin-small.jsonl").path
        let results = scratch.appendingPathComponent("run")
        let made = try await BenchProcess.run(["simulate", trace, "--policy", "lru", "-o", results.path])
        #expect(made.status == 0, "\(made.stderr)")
        let har = scratch.appendingPathComponent("one.har")
        try Data(#"{"log":{"version":"1.2","entries":[]}}"#.utf8).write(to: har)
        let image = scratch.appendingPathComponent("img.jpg")
        #expect(try await BenchProcess.run(["synth", "--width", "64", "--height", "48", "-o", image.path]).status == 0)
        let inputs = Inputs(trace: trace, results: results.path + "/results.json", har: har.path, image: image.path,
                            output: scratch.appendingPathComponent("out/never").path)

        let options = try await Self.allOptions()
        #expect(options.count > 100, "the help dump lists the commands' options")
        for command in Set(options.map(\.command.description)).sorted() {
            let path = options.first { $0.command.description == command }!.command
            #expect(Self.required(path, inputs: inputs) != nil, "no invocation for \(path.joined(separator: " ")): add it to required(_:inputs:)")
        }
        // An option is numeric when the parser itself refuses a word for it; an option group shared by
        // commands (the same name and help) is one type, asked once.
        var firsts: [String: Option] = [:]
        for option in options where firsts[option.name + "|" + option.help] == nil { firsts[option.name + "|" + option.help] = option }
        let probed = try await Self.parallel(Array(firsts.values)) { option -> String? in
            guard let base = Self.required(option.command, inputs: inputs) else { return nil }
            let probe = try await BenchProcess.run(option.command + base + ["--\(option.name)", "abc"], directory: scratch, timeout: .seconds(60))
            return probe.stderr.contains("The value 'abc' is invalid for '--\(option.name)") ? option.name + "|" + option.help : nil
        }
        let numericKinds = Set(probed.compactMap { $0 })
        let numeric = options.filter { numericKinds.contains($0.name + "|" + $0.help) }
        #expect(numeric.count > 40, "found \(numeric.count) numeric options")

        let cases = numeric.flatMap { option in Self.values.map { (option, $0) } }
        let verdicts = try await Self.parallel(cases) { option, value -> String? in
            let work = scratch.appendingPathComponent("w-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let base = Self.required(option.command, inputs: inputs)!
            let ran = try await BenchProcess.run(option.command + base + ["--\(option.name)", value], directory: work, timeout: .seconds(120))
            let said = "\(option) \(value): exit \(ran.status): \(ran.stderr.prefix(300))"
            if ran.signalled { return "crashed or hung: " + said }
            // Taken: only an option that says it takes any value may take these (the run then fails
            // or not on its other arguments, but ends by itself).
            if option.help.contains("any whole number") { return nil }
            if ran.status == 0 { return "accepted: " + said }
            guard ran.status == 2 else { return "not a usage error: " + said }
            guard ran.stderr.contains("--\(option.name)") else { return "does not name the option: " + said }
            let left = try FileManager.default.contentsOfDirectory(atPath: work.path)
            guard left.isEmpty, !FileManager.default.fileExists(atPath: inputs.output) else { return "wrote \(left): " + said }
            return nil
        }
        let failures = verdicts.compactMap { $0 }
        #expect(failures.isEmpty, "\(failures.count) of \(cases.count):\n\(failures.joined(separator: "\n"))")
    }

    /// `body` over `items`, four processes at a time, results in order.
    static func parallel<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) async throws -> Result
    ) async throws -> [Result] {
        try await withThrowingTaskGroup(of: (Int, Result).self) { group in
            var results = [Result?](repeating: nil, count: items.count)
            var next = 0
            func start() {
                let index = next, item = items[index]
                next += 1
                group.addTask { (index, try await body(item)) }
            }
            while next < min(4, items.count) { start() }
            while let (index, result) = try await group.next() {
                results[index] = result
                if next < items.count { start() }
            }
            return results.map { $0! }
        }
    }
}
