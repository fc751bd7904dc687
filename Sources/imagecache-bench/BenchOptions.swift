import ArgumentParser
import Foundation
import ImagePipeline
import Bench
import CacheSimulation
import Workloads

/// The traces a command runs on.
struct WorkloadOptions: ParsableArguments {
    @Argument(help: "Trace files (.jsonl or .jsonl.gz). Default: every .jsonl.gz in ./datasets.")
    var traces: [String] = []

    @Option(parsing: .unconditional, help: "Use only the first N requests of each trace.")
    var requests: Int?

    @Flag(help: "Count every object of a libCacheSim trace as size 1 (its object mode): sizes then count objects.")
    var objects = false

    @Flag(help: "Accept a trace with no events (refused by default: it is usually a cut file).")
    var allowEmpty = false

    @Option(help: ArgumentHelp(
        "How to read the traces: \(TraceFormat.allCases.map(\.rawValue).joined(separator: ", ")).",
        discussion: "Default: by the file: .icbt and oracleGeneral by their names or first bytes; .csv and .tsv (libCacheSim's time,obj_id,obj_size) and .txt (an object id a line) by their names; anything else is a recorded trace (.jsonl, .jsonl.gz)."))
    var traceFormat: TraceFormat?

    @Option(help: "Columns of a csv, tsv or txt trace, from 1: time=1,key=2,size=3 (key is required; without time, requests are a second apart; without size, every object weighs 1).")
    var columns: String?

    @Option(help: ArgumentHelp(
        "Pixels to assume for pictures of unknown size (WxH), as in a HAR exported without bodies.",
        discussion: "Without it a recorded trace holding such pictures is refused: each would cost nothing in memory. `import har` estimates what it can (the URL's size parameters, the response's length); this fills the rest."))
    var assumePixels: String?

    @Option(help: "The unit of a csv or tsv trace's time column: \(DelimitedTraceFormat.TimeUnit.allCases.map(\.rawValue).joined(separator: ", ")).")
    var timeUnit: DelimitedTraceFormat.TimeUnit = .s

    enum TraceFormat: String, CaseIterable, ExpressibleByArgument {
        case jsonl, icbt, oracleGeneral, csv, tsv, txt
    }

    /// The delimited-text layout `path` is read with, if it is a delimited trace.
    func delimitedFormat(of path: String) throws -> DelimitedTraceFormat? {
        var format: DelimitedTraceFormat?
        switch traceFormat {
        case .csv?: format = .libCacheSimCSV
        case .tsv?: format = DelimitedTraceFormat(delimiter: UInt8(ascii: "\t"), key: 2, time: 1, size: 3)
        case .txt?: format = .libCacheSimText
        case nil: format = DelimitedTraceFormat.detect(path)
        case .jsonl?, .icbt?, .oracleGeneral?: return nil
        }
        guard var format else { return nil }
        if let columns { format = try format.with(columns: columns) }
        format.timeUnit = timeUnit
        return format
    }

    /// The files the command reads: those given, or the default datasets.
    var inputPaths: [String] { traces.isEmpty ? ((try? Self.defaultDatasets()) ?? []) : traces }

    /// The traces to read: those given (a pipe copied to a file first, see `InputSpool`), or the default datasets.
    func readablePaths() throws -> [String] {
        traces.isEmpty ? try Self.defaultDatasets() : try traces.map { path throws(TraceError) in try InputSpool.readable(path) }
    }

    func load(progress: ProgressLine = ProgressLine()) throws -> [RecordedWorkload] {
        let paths = try readablePaths()
        return try paths.map { path in
            if try isPlain(path) {
                throw ValidationError("\(path): this command reads recorded traces (.jsonl, .jsonl.gz): its figures need URLs, pictures or a device's events, which a plain trace has not; simulate, sweep and stats also read csv, tsv, txt, oracleGeneral and .icbt traces")
            }
            progress.update("reading \(path)")
            let workload = try priced(RecordedWorkload.load(path: path, allowsEmpty: allowEmpty), path: path)
            return requests.map { workload.prefix($0) } ?? workload
        }
    }

    /// The workload with every picture's size known: pictures of unknown size take
    /// --assume-pixels, or the trace is refused, naming the fix.
    func priced(_ workload: RecordedWorkload, path: String) throws -> RecordedWorkload {
        let unknown = workload.unknownSizeRequests
        guard unknown > 0 else { return workload }
        guard let (width, height) = try assumedPixels() else {
            throw ValidationError("\(path): \(unknown) of \(workload.requests.count) image requests have no known size (a HAR exported without bodies, lengths or size parameters), so each would cost nothing in memory; give --assume-pixels WxH (say 1200x800), or export the HAR with its contents")
        }
        return workload.assumingPixels(width: width, height: height)
    }

    /// --assume-pixels as width and height.
    func assumedPixels() throws -> (Int, Int)? {
        guard let assumePixels else { return nil }
        let parts = assumePixels.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...ImageRequestEvent.maximumPixels).contains(width), (1...ImageRequestEvent.maximumPixels).contains(height) else {
            throw ValidationError("--assume-pixels is WxH, each side from 1 to \(ImageRequestEvent.maximumPixels) pixels (1200x800), not '\(assumePixels)'")
        }
        return (width, height)
    }

    /// Recorded traces; binary `.icbt` simulation traces (keys already interned) and
    /// libCacheSim `.oracleGeneral` traces as they are.
    /// With `streaming`, csv, tsv, txt and oracleGeneral traces are simulated as they are read
    /// (`PlainTraceStream`), for a run that needs no whole trace.
    func loadInputs(progress: ProgressLine = ProgressLine(), streaming: Bool = false) throws -> [SimulationMatrix.Input] {
        let paths = try readablePaths()
        return try paths.map { path in
            progress.update("reading \(path)")
            if streaming, let stream = try plainStream(path, progress: progress) { return .streamed(stream) }
            if let plain = try plainTrace(path) { return .plain(name: URL(fileURLWithPath: path).lastPathComponent, plain) }
            let workload = try priced(RecordedWorkload.load(path: path, allowsEmpty: allowEmpty), path: path)
            return .recorded(requests.map { workload.prefix($0) } ?? workload)
        }
    }

    /// Whether `path` is a plain trace (csv, tsv, txt, oracleGeneral, `.icbt`), by the option, its name or its first bytes.
    func isPlain(_ path: String) throws -> Bool {
        if try delimitedFormat(of: path) != nil { return true }
        switch traceFormat {
        case .jsonl?: return false
        case .icbt?, .oracleGeneral?: return true
        default: return OracleGeneralTrace.isOracleGeneral(path) || SimulationTraceFile.isBinaryTrace(path)
        }
    }

    /// The trace at `path` when it is a plain one (csv, tsv, txt, oracleGeneral, `.icbt`); nil for a recorded trace.
    func plainTrace(_ path: String) throws -> SimulationTrace? {
        if let format = try delimitedFormat(of: path) {
            return try DelimitedTrace.read(path, format: format, objects: objects, allowsEmpty: allowEmpty)
        }
        if traceFormat == .oracleGeneral || (traceFormat == nil && OracleGeneralTrace.isOracleGeneral(path)) {
            return try OracleGeneralTrace.read(path, objects: objects, allowsEmpty: allowEmpty)
        }
        if traceFormat == .icbt || (traceFormat == nil && SimulationTraceFile.isBinaryTrace(path)) {
            return try SimulationTraceFile.read(path)
        }
        return nil
    }

    /// The trace at `path` read on a thread of its own while it is simulated, when it is a csv,
    /// tsv, txt or oracleGeneral one; nil otherwise (`.icbt` traces are read whole: their keys
    /// come interned).
    /// `progress` hears the requests read so far, which a run keeping up has nearly all simulated.
    func plainStream(_ path: String, progress: ProgressLine = ProgressLine()) throws -> PlainTraceStream? {
        let name = URL(fileURLWithPath: path).lastPathComponent, objects = objects, allowsEmpty = allowEmpty
        if let format = try delimitedFormat(of: path) {
            return PlainTraceStream(name: name) { publish in
                var read = RequestsRead(name: name, progress: progress)
                try DelimitedTrace.stream(path, format: format, objects: objects, allowsEmpty: allowsEmpty) { chunk in
                    read.count(chunk)
                    publish(chunk)
                }
            }
        }
        if traceFormat == .oracleGeneral || (traceFormat == nil && OracleGeneralTrace.isOracleGeneral(path)) {
            return PlainTraceStream(name: name) { publish in
                var read = RequestsRead(name: name, progress: progress)
                try OracleGeneralTrace.stream(path, objects: objects, allowsEmpty: allowsEmpty) { chunk in
                    read.count(chunk)
                    publish(chunk)
                }
            }
        }
        return nil
    }

    static func defaultDatasets(directory: String = "datasets") throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let traces = names.filter { $0.hasSuffix(".jsonl.gz") }.sorted()
        guard !traces.isEmpty else {
            throw ValidationError("no traces given and no ./\(directory)/*.jsonl.gz here; run from the project folder or name trace files")
        }
        return traces.map { directory + "/" + $0 }
    }

    func validate() throws {
        if let requests { try OptionCheck.count(requests, "--requests", atLeast: 1, atMost: OptionCheck.maximumRequests) }
        _ = try assumedPixels()
        if let columns {
            do { _ = try DelimitedTraceFormat.libCacheSimCSV.with(columns: columns) } catch { throw ValidationError(error.description) }
        }
    }
}

/// The cache settings a simulation matrix spans; lists are comma-separated.
struct CacheOptions: ParsableArguments {
    @Option(help: "Eviction policies (\(EvictionPolicyKind.allCases.map(\.description).joined(separator: ", ")), or all).")
    var policy = ReplayDefaults.policy.description

    @Option(help: "Memory sizes: 64MB, 1.5GiB, 800KiB, or a share of the working set (10%).")
    var memory = ByteSize.bytes(ReplayDefaults.memoryBytes).description

    @Option(help: "Disk sizes as for --memory, or none.")
    var disk = "150MB"

    @Option(help: "Largest entry the memory tier takes, as a share of its size (Nuke's 10%; 100% for none, as libCacheSim).")
    var maxEntry = "10%"

    @Option(help: "What the disk keeps: originals, thumbnails (re-encoded) or both.")
    var diskPolicy = ReplayDefaults.diskPolicy.rawValue

    @Option(help: "Key strategies (\(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", ")), or all).")
    var keys = ReplayDefaults.keyStrategy.description

    @Option(help: "Reactions to memory warnings: purge-all, trim-to-50%, trim-idle-30s, ignore.")
    var reaction = "purge-all"

    @Option(help: "Where warnings come from: trace, none, every:30s, above:64MB.")
    var warnings = "trace"

    @Flag(help: "Model a pipeline that never invalidates (edited pictures are then served stale).")
    var ignoreInvalidations = false

    @Option(parsing: .unconditional, help: ArgumentHelp(
        "Requests in flight together, as an app loading a screen at once (0: each lands before the next).",
        discussion: "A miss's thumbnail reaches the tiers, oldest first, once more than N/3 later misses and joins have come or sooner when the window is full; a request for a thumbnail in flight joins it. `replay --concurrency N` is compared with this model."))
    var inFlight = 0

    @Option(help: ArgumentHelp(
        "Stripes the memory tier is split into, each with its own lock and share of the limits (1 to 256).",
        discussion: "A striped MemoryCache lets threads work on different keys at once; keys go to stripes by fingerprint, as live."))
    var stripes = 1

    @Option(help: ArgumentHelp(
        "The phone the app runs on (recorded traces; DEVICES.md): none, a class (iphone-3gb), or limit=1400MiB[,baseline=…][,warning=80%][,critical=90%].",
        discussion: "The footprint (the app's own, decoded images held and being decoded) brings warnings and ends the app past the limit."))
    var device = "none"

    func validate() throws {
        try OptionCheck.givenOnce(["--policy", "--memory", "--disk", "--max-entry", "--disk-policy", "--keys", "--reaction", "--warnings", "--device"])
        try OptionCheck.count(inFlight, "--in-flight", atLeast: 0, atMost: 10_000)
        try OptionCheck.count(stripes, "--stripes", atLeast: 1, atMost: 256)
    }

    /// The matrix these options span; with `objects` (a libCacheSim trace in its object
    /// mode) memory sizes count objects, written as plain numbers or `100objects`.
    func matrix(objects: Bool = false) throws -> SimulationMatrix {
        var matrix = SimulationMatrix()
        matrix.policies = try Self.policies(policy)
        matrix.memorySizes = try Self.list(memory, option: "--memory").map { objects ? try Self.objectCount($0) : try Self.size($0) }
        matrix.diskSizes = try Self.list(disk, option: "--disk").map(Self.diskSize)
        matrix.diskPolicy = try Self.diskPolicy(diskPolicy)
        matrix.strategies = try Self.strategies(keys)
        matrix.reactions = try Self.list(reaction, option: "--reaction").map(Self.reaction)
        matrix.warnings = try Self.warningSource(warnings)
        matrix.honoursInvalidations = !ignoreInvalidations
        matrix.inFlight = inFlight
        matrix.stripes = CacheStripes(min(max(stripes, 1), 256))
        matrix.device = try CacheOptions.device(device)
        guard case .fraction(let share) = try Self.size(maxEntry, option: "--max-entry"), share <= 1 else {
            throw ValidationError("--max-entry is a share of the memory size, from 0% to 100%, not '\(maxEntry)'")
        }
        matrix.maxEntryFraction = share
        return matrix
    }

    static func list(_ text: String, option: String = "a list") throws -> [String] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw ValidationError("\(option): an empty list; give at least one value") }
        var seen = Set<String>()
        if let twice = items.first(where: { !seen.insert($0.lowercased()).inserted }) {
            throw ValidationError("\(option) names \(twice) twice; each value once")
        }
        return items
    }

    static func size(_ text: String) throws -> ByteSize { try size(text, option: "--memory") }

    /// --device as a phone, or nil for none; a bad one is a usage error wherever it is read.
    static func device(_ text: String) throws -> DeviceModel? {
        do { return try DeviceParsing.parse(text) } catch { throw ValidationError(error.description) }
    }

    static func size(_ text: String, option: String) throws -> ByteSize {
        do { return try ByteSize(parsing: text) } catch { throw ValidationError("\(option): \(error.description)") }
    }

    static func diskPolicy(_ text: String) throws -> DiskCachePolicy {
        guard let policy = DiskCachePolicy(rawValue: text.lowercased()) else {
            throw ValidationError("--disk-policy is originals, thumbnails or both, not '\(text)'")
        }
        return policy
    }

    /// A disk size, or nil for `none` (no disk tier).
    /// An object count (`100`, `100objects`), or a size or share as for `--memory`; a count is
    /// held as bytes, each object weighing one.
    static func objectCount(_ text: String) throws -> ByteSize {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let number = trimmed.hasSuffix("objects") ? String(trimmed.dropLast(7)) : trimmed
        if let count = Int(number.trimmingCharacters(in: .whitespaces)) {
            guard count >= 1 else { throw ValidationError("--memory: \(text) objects; give at least 1") }
            return .bytes(count)
        }
        return try size(text)
    }

    static func diskSize(_ text: String) throws -> ByteSize? {
        guard text.lowercased() != "none" else { return nil }
        do { return try ByteSize(parsing: text) } catch { throw ValidationError("--disk: \(error.description); for no disk tier, write none") }
    }

    static func policies(_ text: String) throws -> [EvictionPolicyKind] {
        if text.lowercased() == "all" { return EvictionPolicyKind.allCases }
        return try list(text, option: "--policy").map {
            guard let kind = EvictionPolicyKind(name: $0) else {
                throw ValidationError("unknown policy \"\($0)\"; choose from \(EvictionPolicyKind.allCases.map(\.description).joined(separator: ", "))")
            }
            return kind
        }
    }

    static func strategies(_ text: String) throws -> [CacheKeyStrategy] {
        if text.lowercased() == "all" { return CacheKeyStrategy.allStrategies }
        return try list(text, option: "--keys").map {
            guard let strategy = CacheKeyStrategy(name: $0) else {
                throw ValidationError("unknown key strategy \"\($0)\"; choose from \(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))")
            }
            return strategy
        }
    }

    static func reaction(_ text: String) throws -> WarningReaction {
        guard let reaction = WarningReaction(name: text) else {
            throw ValidationError("unknown reaction \"\(text)\"; write purge-all, trim-to-50%, trim-idle-30s or ignore")
        }
        return reaction
    }

    static func warningSource(_ text: String) throws -> SimulationConfiguration.WarningSource {
        do { return try SimulationConfiguration.WarningSource(parsing: text) } catch { throw ValidationError("--warnings: \(error.description)") }
    }
}

/// Where results go.
struct OutputOptions: ParsableArguments {
    @Option(name: [.short, .long], help: "Directory for results.json, CSV, report.md and charts (default: results/<timestamp>).")
    var output: String?

    @Flag(help: "Print results.json to stdout instead of tables.")
    var json = false

    @Flag(help: "Print Markdown tables (for pull requests) instead of plain ones.")
    var markdown = false

    @Flag(help: "Write no files.")
    var noFiles = false

    @Flag(help: "Print every table to the terminal too (the default run prints its summary; the tables are in the results folder).")
    var verbose = false


    func validate() throws {
        if json, markdown { throw ValidationError("--json and --markdown both choose what is printed; give one") }
        if noFiles, output != nil { throw ValidationError("--no-files and --output contradict each other; give one") }
    }

    /// The folder this process claimed for its results.
    private static let claimed = Locked<ResultsFolder?>(nil)
    /// What the run reads, hashed beside the run and recorded in the results.
    private static let inputs = Locked<InputFile.Pending?>(nil)

    /// Claims the results folder before any work (unless --no-files): refused when it is
    /// or holds one of `inputs`, when another run is writing into it, or when it holds
    /// other files.
    func claim(inputs: [String]) throws {
        Self.inputs.withLock { $0 = InputFile.Pending(inputs) }
        guard !noFiles else { return }
        let folder: ResultsFolder
        do {
            // Without --output, a timestamped folder no earlier run has: two runs in one second never share one.
            folder = try output.map { try ResultsFolder(claiming: $0, inputs: inputs) }
                ?? ResultsFolder(claiming: ResultsWriter.newTimestampedDirectory(), inputs: inputs, madeHere: true)
        } catch { throw ValidationError("--output \(PlainFailure.clause(error))") }
        Self.claimed.withLock { $0 = folder }
        ExitCleanup.also { folder.abandonIfUnpublished() }
    }

    /// Prints a table in the chosen form.
    func show(_ title: String, _ table: TextTable) {
        guard !json, !table.rows.isEmpty else { return }
        print(markdown ? "### \(title)\n\n" + table.markdown() + "\n" : "== \(title)\n" + table.render() + "\n")
    }

    /// Writes the results folder (unless --no-files) and prints where it went, or the JSON.
    func finish(_ results: BenchResults) throws {
        var results = results
        results.deriveFigures()
        if results.inputs == nil { results.inputs = Self.inputs.withLock { $0 }?.files ?? [] }
        if json {
            print(try jsonText(results))
        } else {
            let summary = RunSummary.lines(results)
            if !summary.isEmpty { print((markdown ? "### Summary\n\n```\n" : "== summary\n") + summary.joined(separator: "\n") + (markdown ? "\n```" : "")) }
        }
        guard !noFiles else { return }
        if Self.claimed.withLock({ $0 == nil }) { try claim(inputs: []) }
        guard let folder = Self.claimed.withLock({ $0 }) else { return }
        let (files, notes) = try ResultsWriter.write(results, to: folder)
        for note in notes { FileHandle.standardError.write(Data((note + "\n").utf8)) }
        if !json {
            let named = ["report.md", "results.json"].filter(files.contains)
            let others = files.count - named.count
            print("results: \(folder.path)/ (" + (named + (others > 0 ? ["\(others) more: CSVs, charts"] : [])).joined(separator: ", ") + ")")
        }
    }
}

/// The command line as typed, for results files, its paths reduced to file names.
var commandLine: String {
    PathNames.command(["imagecache-bench"] + CommandLine.arguments.dropFirst())
}

/// Pretty, key-sorted JSON as the commands print and write it (non-finite numbers as strings).
func jsonText<T: Encodable>(_ value: T) throws -> String {
    String(decoding: try ResultsJSON.encoder().encode(value), as: UTF8.self)
}

extension DelimitedTraceFormat.TimeUnit: ExpressibleByArgument {}
extension SampleAdjustment: ExpressibleByArgument {}

/// The requests a stream's reader has published, on the progress line.
private struct RequestsRead {
    let name: String
    let progress: ProgressLine
    private var requests = 0

    init(name: String, progress: ProgressLine) {
        self.name = name
        self.progress = progress
    }

    mutating func count(_ chunk: PlainTraceChunk) {
        requests += chunk.count
        progress.update(String(format: "simulate %@: %.1f M requests read", name, Double(requests) / 1e6))
    }
}
