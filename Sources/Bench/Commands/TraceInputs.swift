import Foundation
import CacheSimulation
import Workloads

/// The traces a command runs on, as the user named them, and how each is read: its format
/// by the option, its name or its first bytes; a recorded trace priced for pictures of unknown
/// size; a plain one read whole or simulated while it is read.
public struct TraceInputs: Sendable {
    /// The files given; empty means every `.jsonl.gz` in `./datasets`.
    public var traces: [String] = []
    /// Only the first N requests of each trace.
    public var requests: Int?
    /// libCacheSim's object mode: every object weighs one.
    public var objects = false
    /// Accept a trace with no events.
    public var allowsEmpty = false
    /// The format named on the command line, or nil to tell it by the file.
    public var format: Format?
    /// `time=1,key=2,size=3` for a delimited trace.
    public var columns: String?
    /// `WxH` for pictures of unknown size.
    public var assumePixels: String?
    /// The unit of a delimited trace's time column.
    public var timeUnit: DelimitedTraceFormat.TimeUnit = .s

    public enum Format: String, CaseIterable, Sendable {
        case jsonl, icbt, oracleGeneral, csv, tsv, txt
    }

    public init() {}

    /// The files the command reads: those given, or the default datasets.
    public var inputPaths: [String] { traces.isEmpty ? ((try? Self.defaultDatasets()) ?? []) : traces }

    /// The traces to read: those given (a pipe copied to a file first, see `InputSpool`), or the default datasets.
    public func readablePaths() throws -> [String] {
        traces.isEmpty ? try Self.defaultDatasets() : try traces.map { path throws(TraceError) in try InputSpool.readable(path) }
    }

    /// Every trace as a recorded workload; a plain trace is refused, naming the commands that read it.
    public func load(progress: ProgressLine = ProgressLine()) throws -> [RecordedWorkload] {
        try readablePaths().map { path in
            if try isPlain(path) {
                throw UsageError("\(path): this command reads recorded traces (.jsonl, .jsonl.gz): its figures need URLs, pictures or a device's events, which a plain trace has not; simulate, sweep and stats also read csv, tsv, txt, oracleGeneral and .icbt traces")
            }
            progress.update("reading \(path)")
            return try recorded(path)
        }
    }

    /// Recorded traces; binary `.icbt` simulation traces (keys already interned) and
    /// libCacheSim `.oracleGeneral` traces as they are.
    /// With `streaming`, csv, tsv, txt and oracleGeneral traces are simulated as they are read
    /// (`PlainTraceStream`), for a run that needs no whole trace.
    public func loadInputs(progress: ProgressLine = ProgressLine(), streaming: Bool = false) throws -> [SimulationMatrix.Input] {
        try readablePaths().map { path in
            progress.update("reading \(path)")
            if streaming, let stream = try plainStream(path, progress: progress) { return .streamed(stream) }
            if let plain = try plainTrace(path) { return .plain(name: URL(fileURLWithPath: path).lastPathComponent, plain) }
            return .recorded(try recorded(path))
        }
    }

    private func recorded(_ path: String) throws -> RecordedWorkload {
        let workload = try priced(RecordedWorkload.load(path: path, allowsEmpty: allowsEmpty), path: path)
        return requests.map { workload.prefix($0) } ?? workload
    }

    /// The workload with every picture's size known: pictures of unknown size take
    /// --assume-pixels, or the trace is refused, naming the fix.
    func priced(_ workload: RecordedWorkload, path: String) throws -> RecordedWorkload {
        let unknown = workload.unknownSizeRequests
        guard unknown > 0 else { return workload }
        guard let (width, height) = try assumedPixels() else {
            throw UsageError("\(path): \(unknown) of \(workload.requests.count) image requests have no known size (a HAR exported without bodies, lengths or size parameters), so each would cost nothing in memory; give --assume-pixels WxH (say 1200x800), or export the HAR with its contents")
        }
        return workload.assumingPixels(width: width, height: height)
    }

    /// --assume-pixels as width and height.
    public func assumedPixels() throws -> (Int, Int)? {
        guard let assumePixels else { return nil }
        let parts = assumePixels.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...ImageRequestEvent.maximumPixels).contains(width), (1...ImageRequestEvent.maximumPixels).contains(height) else {
            throw UsageError("--assume-pixels is WxH, each side from 1 to \(ImageRequestEvent.maximumPixels) pixels (1200x800), not '\(assumePixels)'")
        }
        return (width, height)
    }

    /// The delimited-text layout `path` is read with, if it is a delimited trace.
    public func delimitedFormat(of path: String) throws -> DelimitedTraceFormat? {
        var layout: DelimitedTraceFormat?
        switch format {
        case .csv?: layout = .libCacheSimCSV
        case .tsv?: layout = DelimitedTraceFormat(delimiter: UInt8(ascii: "\t"), key: 2, time: 1, size: 3)
        case .txt?: layout = .libCacheSimText
        case nil: layout = DelimitedTraceFormat.detect(path)
        case .jsonl?, .icbt?, .oracleGeneral?: return nil
        }
        guard var layout else { return nil }
        if let columns { layout = try layout.with(columns: columns) }
        layout.timeUnit = timeUnit
        return layout
    }

    /// Whether `path` is a plain trace (csv, tsv, txt, oracleGeneral, `.icbt`), by the option, its name or its first bytes.
    public func isPlain(_ path: String) throws -> Bool {
        if try delimitedFormat(of: path) != nil { return true }
        switch format {
        case .jsonl?: return false
        case .icbt?, .oracleGeneral?: return true
        default: return OracleGeneralTrace.isOracleGeneral(path) || SimulationTraceFile.isBinaryTrace(path)
        }
    }

    private func isOracleGeneral(_ path: String) -> Bool {
        format == .oracleGeneral || (format == nil && OracleGeneralTrace.isOracleGeneral(path))
    }

    /// The trace at `path` when it is a plain one (csv, tsv, txt, oracleGeneral, `.icbt`); nil for a recorded trace.
    public func plainTrace(_ path: String) throws -> SimulationTrace? {
        if let layout = try delimitedFormat(of: path) {
            return try DelimitedTrace.read(path, format: layout, objects: objects, allowsEmpty: allowsEmpty)
        }
        if isOracleGeneral(path) {
            return try OracleGeneralTrace.read(path, objects: objects, allowsEmpty: allowsEmpty)
        }
        if format == .icbt || (format == nil && SimulationTraceFile.isBinaryTrace(path)) {
            return try SimulationTraceFile.read(path)
        }
        return nil
    }

    /// The trace at `path` read on a thread of its own while it is simulated, when it is a csv,
    /// tsv, txt or oracleGeneral one; nil otherwise (`.icbt` traces are read whole: their keys
    /// come interned).
    /// `progress` hears the requests read so far, which a run keeping up has nearly all simulated.
    public func plainStream(_ path: String, progress: ProgressLine = ProgressLine()) throws -> PlainTraceStream? {
        let name = URL(fileURLWithPath: path).lastPathComponent, objects = objects, allowsEmpty = allowsEmpty
        if let layout = try delimitedFormat(of: path) {
            return PlainTraceStream(name: name) { publish in
                var read = RequestsRead(name: name, progress: progress)
                try DelimitedTrace.stream(path, format: layout, objects: objects, allowsEmpty: allowsEmpty) { chunk in
                    read.count(chunk)
                    publish(chunk)
                }
            }
        }
        if isOracleGeneral(path) {
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

    /// Whether `path` is a recorded trace that `--libcachesim` exports before simulating it.
    func isRecorded(_ path: String) throws -> Bool {
        try !OracleGeneralTrace.isOracleGeneral(path) && delimitedFormat(of: path) == nil && (format == nil || format == .jsonl)
    }

    public static func defaultDatasets(directory: String = "datasets") throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let traces = names.filter { $0.hasSuffix(".jsonl.gz") }.sorted()
        guard !traces.isEmpty else {
            throw UsageError("no traces given and no ./\(directory)/*.jsonl.gz here; run from the project folder or name trace files")
        }
        return traces.map { directory + "/" + $0 }
    }

    /// The options' own checks, before anything is read.
    public func validate() throws {
        _ = try assumedPixels()
        if let columns {
            do { _ = try DelimitedTraceFormat.libCacheSimCSV.with(columns: columns) } catch { throw UsageError(error.description) }
        }
    }
}

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
