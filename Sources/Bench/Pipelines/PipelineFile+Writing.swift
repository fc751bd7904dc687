import CacheSimulation
import ImagePipeline

extension PipelineFile {
    /// The pipeline as a file: every field written, so the file reads back as this pipeline
    /// and says all it runs. A policy of your own (`.custom`) has no name a file could carry.
    public static func text(of preset: AppPreset) throws(UsageError) -> String {
        if case .custom = preset.policy { throw UsageError("\(preset.name): a policy of your own has no name a pipeline file could carry") }
        var lines = ["name: \(quoted(preset.name))"]
        if let app = preset.app { lines.append("app: \(quoted(app))") }
        if !preset.summary.isEmpty { lines.append("summary: \(quoted(preset.summary))") }
        if !preset.evidence.isEmpty {
            lines.append("evidence:")
            lines += preset.evidence.map { "  - \(quoted($0))" }
        }
        lines.append("keys:")
        lines.append("  memory: \(preset.memoryKey)")
        if let diskKey = preset.diskKey { lines.append("  disk: \(diskKey)") }
        lines.append("decode: \(Vocabulary.decodeText(preset.memoryCost))")
        if preset.hasNoMemory {
            lines.append("memory: none")
        } else {
            lines += [
                "memory:",
                "  limit: \(Vocabulary.memoryLimitText(preset))",
                "  count-limit: \(Vocabulary.countText(preset.memoryLimits.countLimit))",
                "  max-entry: \(Vocabulary.shareText(preset.memoryLimits.maxEntryFraction))",
                "  policy: \(preset.policy)",
                "  time-to-live: \(Vocabulary.spanText(preset.timeToLive))",
                "  on-warning: \(preset.pressure.warning)",
                "  on-critical: \(preset.pressure.critical)",
            ]
        }
        if let disk = preset.disk {
            lines += [
                "disk:",
                "  limit: \(Vocabulary.sizeText(disk.byteLimit))",
                "  count-limit: \(Vocabulary.countText(disk.countLimit))",
                "  low-water: \(Vocabulary.shareText(disk.lowWaterFraction))",
                "  keeps: \(disk.policy.rawValue)",
                "  format: \(try Vocabulary.formatText(preset.originalDiskFormat))",
            ]
        } else {
            lines.append("disk: none")
        }
        lines += [
            "loads:",
            "  in-flight: \(preset.loadsInFlight)",
            "  coalescing: \(preset.coalescing)",
            "  timeout: \(Vocabulary.spanText(preset.requestTimeout))",
            "invalidations: \(preset.honoursInvalidations ? "honoured" : "ignored")",
        ]
        if !preset.defects.isEmpty { lines.append("defects: [\(preset.defects.map(\.id).joined(separator: ", "))]") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A YAML double-quoted scalar, when the text needs one.
    private static func quoted(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) } && Double(text) == nil
            && !["true", "false", "yes", "no", "null", "on", "off", "none", "~"].contains(text.lowercased())
        if plain { return text }
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }
}
