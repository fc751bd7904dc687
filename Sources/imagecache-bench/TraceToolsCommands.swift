import CacheSimulation
import ArgumentParser
import Foundation
import ImagePipeline
import Bench
import Workloads

struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Bring real recordings in: a HAR file as a trace, API responses as a URL catalogue.",
        subcommands: [ImportHAR.self, ImportAPI.self]
    )

    struct ImportHAR: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "har", abstract: "A HAR file (plain or .har.gz) → trace: pictures and JSON pages, its pages as devices.")
        @Argument(help: "The HAR file.") var file: String
        @Option(name: [.short, .long], help: "Trace to write (.jsonl or .jsonl.gz).") var output: String
        @Flag(help: "Write the trace even when the HAR holds no picture or JSON response (refused otherwise).") var allowEmpty = false
        @Flag(help: "Refuse the file at its first damaged entry (a bad base64 body, a redacted one, a bad field) instead of skipping or sizing it.")
        var strict = false
        @Flag(help: "One session for every page, even independent runs (WebPageTest, Browsertime), which are otherwise a device each.")
        var oneSession = false

        func run() throws {
            try OutputFile.refuseOverwriting(output, inputs: [file])
            let name = URL(fileURLWithPath: file).lastPathComponent
            let summary = try HARImporter.importFile(
                file, to: output, generator: "imagecache-bench import har \(name)",
                options: .init(allowsEmpty: allowEmpty, strict: strict, oneSession: oneSession))
            for line in ImportSummary.lines(summary, output: output) { print(line) }
        }
    }

    struct ImportAPI: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "api", abstract: "NewsAPI, Aladin, Unsplash or open-market responses → URL catalogue (JSON).")
        @Argument(help: "Response files (the service is recognised from the shape).") var files: [String]
        @Option(name: [.short, .long], help: "Catalogue to write.") var output: String

        func run() throws {
            var catalogue = URLCatalogue()
            for file in files { try catalogue.add(file: file) }
            try OutputFile.write(Data(jsonText(catalogue).utf8), to: output)
            let byService = Dictionary(grouping: catalogue.entries, by: \.service).map { "\($0.key.rawValue) \($0.value.count)" }.sorted()
            print("wrote \(output): \(catalogue.entries.count) image URLs (\(byService.joined(separator: ", ")))")
        }
    }
}

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a trace for libCacheSim: CSV (time,obj_id,obj_size) or oracleGeneral binary.")
    @Argument(help: "The trace.") var trace: String
    @Option(help: "csv or oracleGeneral.") var layout = "oracleGeneral"
    @Option(name: [.customLong("keys"), .customLong("key-strategy")],
            help: "Cache-key strategy that names objects (\(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))).")
    var keyStrategy = ReplayDefaults.keyStrategy.description
    @Flag(help: "One object space for all sessions (default: each session is its own device).") var shared = false
    @Flag(help: "Accept a trace with no events (refused by default: it is usually a cut file).") var allowEmpty = false
    @Option(name: [.short, .long], help: "File to write.") var output: String

    func run() throws {
        guard let layout = LibCacheSimExport.Layout(rawValue: layout) else { throw ValidationError("layout must be csv or oracleGeneral") }
        guard let strategy = CacheKeyStrategy(name: keyStrategy) else { throw ValidationError("unknown key strategy \"\(keyStrategy)\"") }
        var export = LibCacheSimExport(strategy: strategy, layout: layout)
        export.scopeToSession = !shared
        export.allowsEmpty = allowEmpty
        try OutputFile.refuseOverwriting(output, inputs: [trace])
        let summary = try export.export(trace, to: output)
        print("wrote \(output): \(summary.requests) requests (\(layout.rawValue), keys \(strategy))")
        if let notCarried = summary.notCarried {
            // libCacheSim replays plain lookups: figures that depend on these are not comparable.
            print("not carried by the layout (replayed as plain requests): \(notCarried)")
        }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Summary statistics of traces: recorded ones, and plain ones (csv, tsv, txt, oracleGeneral, .icbt).")
    @OptionGroup var workloads: WorkloadOptions
    @Flag(help: "JSON instead of a table.") var json = false

    func validate() throws {
        if workloads.requests != nil { throw ValidationError("--requests: stats reads whole traces") }
    }

    /// One trace's statistics, as its kind has them.
    enum Entry: Encodable {
        case recorded(TraceStatistics), plain(PlainTraceStatistics)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .recorded(let statistics): try statistics.encode(to: encoder)
            case .plain(let statistics): try statistics.encode(to: encoder)
            }
        }
    }

    func run() throws {
        var seen = Set<String>()
        let paths = try workloads.inputs.readablePaths()
        let all = try paths.filter { seen.insert($0).inserted }.map { path -> (path: String, entry: Entry) in
            if let plain = try workloads.inputs.plainTrace(path) { return (path, .plain(plain.plainStatistics)) }
            return (path, .recorded(try TraceStatistics.of(path: path, allowsEmpty: workloads.allowEmpty)))
        }
        let names = all.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        if json {
            // Keyed by file name, or by the path as given where two files share a name.
            let keys = zip(all, names).map { entry, name in names.filter { $0 == name }.count > 1 ? entry.path : name }
            print(try jsonText(Dictionary(uniqueKeysWithValues: zip(keys, all.map(\.entry)).map { ($0, $1) })))
            return
        }
        let recorded = zip(names, all).compactMap { name, entry in if case .recorded(let s) = entry.entry { (name, s) } else { nil } }
        let plain = zip(names, all).compactMap { name, entry in if case .plain(let s) = entry.entry { (name, s) } else { nil } }
        if !recorded.isEmpty { print(TraceStatisticsTable.render(recorded)) }
        if !plain.isEmpty { print(TraceStatisticsTable.render(plain: plain)) }
    }
}
