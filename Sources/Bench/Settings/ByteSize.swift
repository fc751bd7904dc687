import Foundation
import CacheEngine

/// A cache size as users write it: `64MB`, `1.5GiB`, `800KB`, `4096B`, or
/// `10%` of what the workload would need to never evict (its footprint).
/// KB/MB/GB are decimal (1000), KiB/MiB/GiB binary (1024). A bare number is
/// refused: `--memory 64` meant 64 bytes, which nobody means.
public enum ByteSize: Hashable, Sendable, CustomStringConvertible, Codable {
    case bytes(Int)
    case fraction(Double)

    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        /// What is wrong, when it is more than the form.
        public var reason: String?
        public var description: String {
            "\"\(text)\" is not a size: " + (reason.map { $0 + "; " } ?? "")
                + "write a number with a unit (64MB, 1.5GiB, 800KiB, 4096B) or a share of the working set (10%)"
        }
    }

    /// The largest size taken: 4 EiB, far beyond any cache and clear of overflow in sums of sizes.
    public static let largest = 1 << 62

    private static let units: [(String, Double)] = [
        ("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("tib", 1_099_511_627_776),
        ("kb", 1e3), ("mb", 1e6), ("gb", 1e9), ("tb", 1e12), ("k", 1024), ("m", 1_048_576), ("g", 1_073_741_824), ("b", 1),
    ]

    public init(parsing text: String) throws(ParseError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasSuffix("%") {
            guard let percent = Double(trimmed.dropLast()), percent.isFinite else { throw ParseError(text: text) }
            guard percent > 0 else { throw ParseError(text: text, reason: "a share must be above 0%") }
            self = .fraction(percent / 100)
            return
        }
        let suffix = String(trimmed.drop { $0.isNumber || $0 == "." || $0 == "-" || $0 == "+" || $0 == " " })
        guard let unit = Self.units.first(where: { $0.0 == suffix }) else {
            throw ParseError(text: text, reason: suffix.isEmpty ? "no unit" : "unknown unit \"\(suffix)\" (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)")
        }
        let number = String(trimmed.dropLast(unit.0.count))
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite else { throw ParseError(text: text) }
        guard value > 0 else { throw ParseError(text: text, reason: "a size must be above 0") }
        guard value * unit.1 <= Double(Self.largest) else {
            throw ParseError(text: text, reason: "larger than the largest size taken, 4EiB (\(Self.largest)B)")
        }
        // Sizes are whole bytes, rounded to the nearest: one that rounds to none is refused as 0B is.
        let bytes = Int((value * unit.1).rounded())
        guard bytes >= 1 else { throw ParseError(text: text, reason: "less than one byte (sizes are whole bytes, rounded to the nearest)") }
        self = .bytes(bytes)
    }

    /// The size in bytes, given the footprint a fraction refers to.
    public func resolved(footprint: Int) -> Int {
        switch self {
        case .bytes(let bytes): bytes
        case .fraction(let fraction): max(1, Int((Double(footprint) * fraction).rounded()))
        }
    }

    public var description: String {
        switch self {
        case .bytes(let bytes): Self.format(bytes)
        case .fraction(let fraction): "\((fraction * 100).formatted(.number.precision(.fractionLength(0...2))))%"
        }
    }

    /// Bytes as a user would have typed them (`ByteCountText`): 150MB, 100MiB, 1.5GiB; a limit
    /// past the largest size taken is no limit (a pipeline file's `unlimited`).
    public static func format(_ bytes: Int) -> String { bytes > largest ? "unlimited" : ByteCountText.string(bytes) }
}
