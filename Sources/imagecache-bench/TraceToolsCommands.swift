import ArgumentParser
import Bench
import CacheSimulation
import Foundation
import ImagePipeline
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
            for line in summary.lines(output: output) { print(line) }
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
            try OutputFile.write(Data(ResultsJSON.text(catalogue).utf8), to: output)
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
    @Option(help: "csv or oracleGeneral.") var layout = ExportJob().layout
    @Option(name: [.customLong("keys"), .customLong("key-strategy")],
            help: "Cache-key strategy that names objects (\(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))).")
    var keyStrategy = ReplayDefaults.keyStrategy.description
    @Flag(help: "One object space for all sessions (default: each session is its own device).") var shared = false
    @Flag(help: "Accept a trace with no events (refused by default: it is usually a cut file).") var allowEmpty = false
    @Option(name: [.short, .long], help: "File to write.") var output: String

    func run() throws {
        var job = ExportJob()
        job.trace = trace
        job.output = output
        job.layout = layout
        job.keys = keyStrategy
        job.shared = shared
        job.allowsEmpty = allowEmpty
        for line in try job.run() { print(line) }
    }
}

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Summary statistics of traces: recorded ones, and plain ones (csv, tsv, txt, oracleGeneral, .icbt).")
    @OptionGroup var workloads: WorkloadOptions
    @Flag(help: "JSON instead of a table.") var json = false

    func run() throws {
        var job = StatsJob()
        job.inputs = workloads.inputs
        job.json = json
        try job.run()
    }
}
