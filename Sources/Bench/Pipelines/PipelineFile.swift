import Foundation
import Yams
import CacheSimulation
import ImagePipeline
import Workloads

/// A pipeline file: one image pipeline in the suite's vocabulary, as YAML a person writes and
/// reviews (docs/PIPELINES.md has every field). A field left out takes what `simulate` runs when
/// not told; a field the format does not have, or a value out of its range, is refused with its
/// line. `PipelineFile.text(of:)` writes every field, so a written file reads back as it was.
public enum PipelineFile {
    /// The pipeline in the file at `path`, or in a pipe (`<(…)`, `/dev/stdin`), spooled as traces are.
    public static func read(_ path: String) throws(PipelineFileError) -> AppPreset {
        let text: String
        do { text = try String(contentsOfFile: InputSpool.readable(path), encoding: .utf8) } catch {
            throw PipelineFileError(path: path, line: 0, message: "cannot be read as UTF-8 text (\(PlainFailure.clause(error)))")
        }
        return try parse(text, path: path)
    }

    /// The pipeline `text` describes; `path` names it in errors.
    public static func parse(_ text: String, path: String) throws(PipelineFileError) -> AppPreset {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else {
                throw PipelineFileError(path: path, line: 0, message: "is empty; a pipeline file has at least its name")
            }
            root = node
        } catch let error as PipelineFileError {
            throw error
        } catch YamlError.duplicatedKeysInMapping(let duplicates, let context) {
            // Yams refuses a key given twice before any field is read; it marks the mapping.
            throw PipelineFileError(
                path: path, line: context.mark.line, message: "the mapping here gives \(duplicates.sorted().joined(separator: ", ")) twice")
        } catch {
            throw PipelineFileError(path: path, line: Self.line(of: error), message: "is not YAML: \(Self.problem(of: error))")
        }
        var fields = try YAMLFields(root, path: path)
        let name = try fields.required("name")
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            throw fields.error("name", "\"\(name)\" is not a name; use letters, digits, - _ and . (it names the pipeline's figures)")
        }
        var preset = AppPreset(name: name)
        preset.app = try fields.text("app")
        preset.summary = try fields.text("summary") ?? ""
        preset.evidence = try fields.list("evidence") ?? []
        if var keys = try fields.section("keys") {
            preset.memoryKey = try keys.value("memory", Vocabulary.keyStrategy) ?? preset.memoryKey
            preset.diskKey = try keys.value("disk", Vocabulary.keyStrategy)
            try keys.finish()
        }
        preset.memoryCost = try fields.value("decode", Vocabulary.decode) ?? preset.memoryCost
        switch try fields.mapping("memory") {
        case .none?: preset.withoutMemory()
        case .fields(var memory)?: try readMemory(&memory, into: &preset)
        case nil: break
        }
        switch try fields.mapping("disk") {
        case .none?: preset.disk = nil
        case .fields(var disk)?: try readDisk(&disk, into: &preset)
        case nil: break
        }
        if var loads = try fields.section("loads") {
            preset.loadsInFlight = try loads.value("in-flight") { try Vocabulary.count($0, in: 0...10_000) } ?? preset.loadsInFlight
            preset.coalescing = try loads.value("coalescing", Vocabulary.coalescing) ?? preset.coalescing
            preset.requestTimeout = try loads.value("timeout", Vocabulary.span("timeout")) ?? preset.requestTimeout
            try loads.finish()
        }
        preset.honoursInvalidations = try fields.value("invalidations", Vocabulary.invalidations) ?? preset.honoursInvalidations
        preset.defects = try (fields.list("defects") ?? []).map { id throws(PipelineFileError) in
            guard let defect = AppDefect.all.first(where: { $0.id == id }) else {
                throw fields.error("defects", "unknown defect \"\(id)\"; choose from \(AppDefect.all.map(\.id).joined(separator: ", "))")
            }
            return defect
        }
        try fields.finish()
        return preset
    }

    private static func readMemory(_ memory: inout YAMLFields, into preset: inout AppPreset) throws(PipelineFileError) {
        switch try memory.value("limit", Vocabulary.memoryLimit) {
        case .bytes(let bytes)?: preset.memoryLimits.costLimit = bytes
        case .deviceShare(let share)?: preset.memoryDeviceShare = share
        case nil: break
        }
        preset.memoryLimits.countLimit = try memory.value("count-limit") { try Vocabulary.count($0, in: 0...Int.max) } ?? preset.memoryLimits.countLimit
        preset.memoryLimits.maxEntryFraction = try memory.value("max-entry") { try Vocabulary.share($0) } ?? preset.memoryLimits.maxEntryFraction
        preset.policy = try memory.value("policy", Vocabulary.policy) ?? preset.policy
        preset.timeToLive = try memory.value("time-to-live", Vocabulary.span("time-to-live")) ?? nil
        preset.pressure.warning = try memory.value("on-warning", Vocabulary.reaction) ?? preset.pressure.warning
        preset.pressure.critical = try memory.value("on-critical", Vocabulary.reaction) ?? preset.pressure.critical
        try memory.finish()
    }

    private static func readDisk(_ disk: inout YAMLFields, into preset: inout AppPreset) throws(PipelineFileError) {
        var tier = preset.disk ?? SimulationConfiguration.DiskTier(byteLimit: ReplayDefaults.diskBytes, policy: ReplayDefaults.diskPolicy)
        tier.byteLimit = try disk.value("limit", Vocabulary.size) ?? tier.byteLimit
        tier.countLimit = try disk.value("count-limit") { try Vocabulary.count($0, in: 1...Int.max) } ?? tier.countLimit
        tier.lowWaterFraction = try disk.value("low-water") { try Vocabulary.share($0) } ?? tier.lowWaterFraction
        tier.policy = try disk.value("keeps", Vocabulary.keeps) ?? tier.policy
        preset.originalDiskFormat = try disk.value("format", Vocabulary.format) ?? nil
        try disk.finish()
        preset.disk = tier
    }

    /// The line a Yams error points at, or 0.
    private static func line(of error: any Error) -> Int {
        guard let error = error as? YamlError else { return 0 }
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): return mark.line
        default: return 0
        }
    }

    private static func problem(of error: any Error) -> String {
        guard let error = error as? YamlError else { return PlainFailure.clause(error) }
        switch error {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _), .composer(let context, let problem, _, _):
            return [context.map { "\($0.text)" }, problem].compactMap { $0 }.joined(separator: ", ")
        default: return PlainFailure.clause(error)
        }
    }
}

extension AppPreset {
    /// A pipeline named `name` with what `simulate` runs when not told (ReplayDefaults): what a
    /// pipeline file's left-out fields take.
    init(name: String) {
        self.init(
            name: name, app: nil, summary: "", evidence: [], memoryKey: ReplayDefaults.keyStrategy, diskKey: nil, memoryCost: .thumbnail,
            memoryLimits: CacheLimits(costLimit: ReplayDefaults.memoryBytes), memoryDeviceShare: nil, policy: ReplayDefaults.policy, timeToLive: nil,
            pressure: WarningReaction(.purgeAll).policy,
            disk: .init(byteLimit: ReplayDefaults.diskBytes, policy: ReplayDefaults.diskPolicy), originalDiskFormat: nil,
            coalescing: .perWaiter, loadsInFlight: 0, honoursInvalidations: true, defects: [])
    }

    /// No memory cache: each request decodes again (`memory: none`).
    mutating func withoutMemory() {
        memoryLimits = CacheLimits(costLimit: 0, countLimit: 0)
        memoryDeviceShare = nil
        policy = .lru
        timeToLive = nil
        pressure = .purgeAll
    }

    /// Whether the memory tier holds nothing (`memory: none`).
    var hasNoMemory: Bool { memoryLimits.costLimit == 0 && memoryLimits.countLimit == 0 }
}
