import Foundation
import CacheSimulation
import ImagePipeline

/// Settings as typed on a command line, each read into what it names or refused as a usage
/// error naming the option, what it takes and what was given. One reading for every command.
public enum SettingParsing {
    /// A comma-separated list, each value once.
    public static func list(_ text: String, option: String = "a list") throws -> [String] {
        let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { throw UsageError("\(option): an empty list; give at least one value") }
        var seen = Set<String>()
        if let twice = items.first(where: { !seen.insert($0.lowercased()).inserted }) {
            throw UsageError("\(option) names \(twice) twice; each value once")
        }
        return items
    }

    /// A size (64MB) or a share of the working set (10%).
    public static func size(_ text: String, option: String = "--memory") throws -> ByteSize {
        do { return try ByteSize(parsing: text) } catch { throw UsageError("\(option): \(error.description)") }
    }

    /// An object count (`100`, `100objects`), or a size or share as for `--memory`; a count is
    /// held as bytes, each object weighing one.
    public static func objectCount(_ text: String) throws -> ByteSize {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let number = trimmed.hasSuffix("objects") ? String(trimmed.dropLast(7)) : trimmed
        if let count = Int(number.trimmingCharacters(in: .whitespaces)) {
            guard count >= 1 else { throw UsageError("--memory: \(text) objects; give at least 1") }
            return .bytes(count)
        }
        return try size(text)
    }

    /// A disk size, or nil for `none` (no disk tier).
    public static func diskSize(_ text: String) throws -> ByteSize? {
        guard text.lowercased() != "none" else { return nil }
        do { return try ByteSize(parsing: text) } catch { throw UsageError("--disk: \(error.description); for no disk tier, write none") }
    }

    public static func diskPolicy(_ text: String) throws -> DiskCachePolicy {
        guard let policy = DiskCachePolicy(rawValue: text.lowercased()) else {
            throw UsageError("--disk-policy is originals, thumbnails or both, not '\(text)'")
        }
        return policy
    }

    /// --device as a phone, or nil for none.
    public static func device(_ text: String) throws -> DeviceModel? {
        do { return try DeviceParsing.parse(text) } catch { throw UsageError(error.description) }
    }

    /// `--network recorded`: each trace's own network, fitted to the fetch times it kept
    /// (`RecordedNetwork`); `simulate` takes it, per trace.
    public static let recordedNetwork = "recorded"

    /// "none", a preset or `rtt=…,down=…[,loss=…][,connections=…]`.
    public static func network(_ text: String) throws -> NetworkProfile? {
        if text.lowercased() == "none" { return nil }
        if text.lowercased() == recordedNetwork {
            throw UsageError("--network recorded fits each trace's own fetch times, which simulate does per trace; here give a profile (slow-4g, lte, wifi, …)")
        }
        do { return try NetworkProfile(parsing: text) } catch { throw UsageError("--network: \(error.description)") }
    }

    /// When requests arrive on a clock: `recorded` or `back-to-back`.
    public static func arrivals(_ text: String) throws -> SimulationConfiguration.Arrivals {
        guard let arrivals = SimulationConfiguration.Arrivals(rawValue: text.lowercased()) else {
            throw UsageError("--arrivals is \(SimulationConfiguration.Arrivals.allCases.map(\.rawValue).joined(separator: " or ")), not '\(text)'")
        }
        return arrivals
    }

    public static func policies(_ text: String) throws -> [EvictionPolicyKind] {
        if text.lowercased() == "all" { return EvictionPolicyKind.allCases }
        return try list(text, option: "--policy").map {
            guard let kind = EvictionPolicyKind(name: $0) else {
                throw UsageError("unknown policy \"\($0)\"; choose from \(EvictionPolicyKind.allCases.map(\.description).joined(separator: ", "))")
            }
            return kind
        }
    }

    public static func strategies(_ text: String) throws -> [CacheKeyStrategy] {
        if text.lowercased() == "all" { return CacheKeyStrategy.allStrategies }
        return try list(text, option: "--keys").map {
            guard let strategy = CacheKeyStrategy(name: $0) else {
                throw UsageError("unknown key strategy \"\($0)\"; choose from \(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))")
            }
            return strategy
        }
    }

    public static func reaction(_ text: String) throws -> WarningReaction {
        guard let reaction = WarningReaction(name: text) else {
            throw UsageError("unknown reaction \"\(text)\"; write purge-all, trim-to-50%, trim-idle-30s or ignore")
        }
        return reaction
    }

    /// A span of time: a number with s, m, h or d (`30s`, `10m`, `7d`).
    public static func duration(_ text: String, option: String) throws -> Duration {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let scales: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = trimmed.last, let scale = scales[unit], let value = Double(trimmed.dropLast()), value.isFinite,
              value > 0, value * scale <= 1e12 else {
            throw UsageError("\(option): \"\(text)\" is not a span of time above 0; write a number with s, m, h or d (30s, 10m, 7d)")
        }
        return .milliseconds(Int64((value * scale * 1000).rounded()))
    }

    public static func warningSource(_ text: String) throws -> SimulationConfiguration.WarningSource {
        do { return try SimulationConfiguration.WarningSource(parsing: text) } catch { throw UsageError("--warnings: \(error.description)") }
    }
}
