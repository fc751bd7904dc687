import CacheSimulation
import ImagePipeline

extension PipelineFile {
    /// Each field's values, read and written side by side so a written file reads back as it
    /// was; the names are the command line's (`--policy`, `--keys`, `--reaction`) where it has them.
    enum Vocabulary {
        static func keyStrategy(_ text: String) throws -> CacheKeyStrategy {
            guard let strategy = CacheKeyStrategy(name: text) else {
                throw UsageError("unknown key strategy \"\(text)\"; choose from \(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))")
            }
            return strategy
        }

        static func decode(_ text: String) throws -> RecordedWorkload.MemoryCost {
            switch text.lowercased() {
            case "thumbnail": return .thumbnail
            case "full": return .decodedOriginal
            default: throw UsageError("is thumbnail (shrunk to the cell's box on load) or full (the whole image), not \"\(text)\"")
            }
        }

        static func decodeText(_ cost: RecordedWorkload.MemoryCost) -> String { cost == .thumbnail ? "thumbnail" : "full" }

        /// A size, or `unlimited`; a share of a working set has no meaning outside one run.
        static func size(_ text: String) throws -> Int {
            if text.lowercased() == "unlimited" { return .max }
            switch try ByteSize(parsing: text) {
            case .bytes(let bytes): return bytes
            case .fraction: throw UsageError("is a size (64MB, 1.5GiB) or unlimited; a share of a trace's working set belongs to simulate --memory")
            }
        }

        enum MemoryLimit {
            case bytes(Int)
            case deviceShare(AppPreset.DeviceShare)
        }

        /// A size, `unlimited`, or a share of the phone's memory: `15% of device memory[, at most 768MiB]`.
        static func memoryLimit(_ text: String) throws -> MemoryLimit {
            let parts = text.lowercased().split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            let suffix = " of device memory"
            guard parts[0].hasSuffix(suffix) else {
                guard parts.count == 1 else { throw UsageError("\"at most\" bounds a share of device memory (15% of device memory, at most 768MiB)") }
                return .bytes(try size(text))
            }
            let share = try self.share(String(parts[0].dropLast(suffix.count)))
            guard parts.count == 2 else { return .deviceShare(.init(share: share)) }
            guard parts[1].hasPrefix("at most ") else { throw UsageError("is a share of device memory, then \", at most\" a size, not \"\(text)\"") }
            return .deviceShare(.init(share: share, atMost: try size(String(parts[1].dropFirst(8)))))
        }

        static func memoryLimitText(_ preset: AppPreset) -> String {
            guard let device = preset.memoryDeviceShare else { return sizeText(preset.memoryLimits.costLimit) }
            return shareText(device.share) + " of device memory" + (device.atMost.map { ", at most " + sizeText($0) } ?? "")
        }

        /// The size as typed, exact: `150MB`, `100MiB`, else whole bytes.
        static func sizeText(_ bytes: Int) -> String {
            if bytes == .max { return "unlimited" }
            let short = ByteSize.format(bytes)
            return (try? ByteSize(parsing: short)) == .bytes(bytes) ? short : "\(bytes)B"
        }

        static func count(_ text: String, in range: ClosedRange<Int>) throws -> Int {
            if text.lowercased() == "unlimited", range.upperBound == .max { return .max }
            guard let count = Int(text), range.contains(count) else {
                let upper = range.upperBound == .max ? "unlimited" : "\(range.upperBound)"
                throw UsageError("is a whole number from \(range.lowerBound) to \(upper), not \"\(text)\"")
            }
            return count
        }

        static func countText(_ count: Int) -> String { count == .max ? "unlimited" : "\(count)" }

        /// A share above 0% and at most 100%.
        static func share(_ text: String) throws -> Double {
            guard case .fraction(let share)? = try? ByteSize(parsing: text), share <= 1 else {
                throw UsageError("is a share above 0% and at most 100%, not \"\(text)\"")
            }
            return share
        }

        static func shareText(_ share: Double) -> String { ByteSize.fraction(share).description }

        static func policy(_ text: String) throws -> EvictionPolicyKind {
            guard let kind = EvictionPolicyKind(name: text) else {
                throw UsageError("unknown policy \"\(text)\"; choose from \(EvictionPolicyKind.allCases.map(\.description).joined(separator: ", "))")
            }
            return kind
        }

        /// A span of time for `field` (`time-to-live`, `loads.timeout`), or `none`: never.
        static func span(_ field: String) -> (String) throws -> Duration? {
            { text in text.lowercased() == "none" ? nil : try SettingParsing.duration(text, option: field) }
        }

        /// A span of time as a pipeline file writes it (`span`), or `none`.
        static func spanText(_ duration: Duration?) -> String {
            guard let duration else { return "none" }
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
        }

        /// A reaction as `--reaction` names it, for one level of warning.
        static func reaction(_ text: String) throws -> MemoryPressureReaction {
            try SettingParsing.reaction(text).policy.warning
        }

        static func keeps(_ text: String) throws -> DiskCachePolicy {
            guard let policy = DiskCachePolicy(rawValue: text.lowercased()) else {
                throw UsageError("is originals, thumbnails or both, not \"\(text)\"")
            }
            return policy
        }

        /// `as-downloaded`, or what an app re-encodes originals to: `jpeg-40`, `png-6`, `webp-80`.
        static func format(_ text: String) throws -> EncodedFormat? {
            let lowered = text.lowercased()
            if lowered == "as-downloaded" { return nil }
            let parts = lowered.split(separator: "-")
            let refusal = UsageError("is as-downloaded, jpeg-QUALITY (1–100), png-LEVEL (0–9) or webp-QUALITY (1–100), not \"\(text)\"")
            guard parts.count == 2, let number = Int(parts[1]) else { throw refusal }
            switch parts[0] {
            case "jpeg" where (1...100).contains(number): return .jpeg(quality: number)
            case "png" where (0...9).contains(number): return .png(compression: number)
            case "webp" where (1...100).contains(number): return .webp(quality: number)
            default: throw refusal
            }
        }

        static func formatText(_ format: EncodedFormat?) throws(UsageError) -> String {
            switch format {
            case nil: "as-downloaded"
            case .jpeg(let quality)?: "jpeg-\(quality)"
            case .png(let level)?: "png-\(level)"
            case .webp(let quality, false)?: "webp-\(quality)"
            case let other?: throw UsageError("a pipeline file has no words for re-encoding originals as \(other)")
            }
        }

        static func coalescing(_ text: String) throws -> SimulationConfiguration.FetchCoalescing {
            let all: [SimulationConfiguration.FetchCoalescing] = [.perWaiter, .none, .myMarketAsShipped]
            guard let coalescing = all.first(where: { $0.description == text.lowercased() }) else {
                throw UsageError("is \(all.map(\.description).joined(separator: ", ")), not \"\(text)\"")
            }
            return coalescing
        }

        static func invalidations(_ text: String) throws -> Bool {
            switch text.lowercased() {
            case "honoured", "honored": return true
            case "ignored": return false
            default: throw UsageError("is honoured (a changed picture is downloaded again) or ignored, not \"\(text)\"")
            }
        }
    }
}
