/// Byte counts written as a user would have typed them: the shortest exact
/// form with at most one decimal, in a decimal or binary unit (150MB, 100MiB,
/// 1.5GiB, 64KB rather than 62.5KiB); otherwise in the largest binary unit to one
/// decimal (143.1MiB). Labels in results then read as the options that made them.
public enum ByteCountText {
    private static let units: [(suffix: String, scale: Int)] = [
        ("GiB", 1 << 30), ("GB", 1_000_000_000), ("MiB", 1 << 20), ("MB", 1_000_000), ("KiB", 1 << 10), ("KB", 1_000),
    ]

    public static func string(_ bytes: Int) -> String {
        let (tenfold, overflow) = bytes.multipliedReportingOverflow(by: 10)
        if !overflow {
            let exact = units.filter { bytes >= $0.scale && tenfold % $0.scale == 0 }.map { tenths(tenfold / $0.scale) + $0.suffix }
            if let shortest = exact.min(by: { $0.count < $1.count }) { return shortest }  // ties: the larger unit, listed first
        }
        if let unit = units.first(where: { $0.suffix.hasSuffix("iB") && bytes >= $0.scale }) {
            return tenths(Int((Double(bytes) * 10 / Double(unit.scale)).rounded())) + unit.suffix
        }
        return "\(bytes)B"
    }

    private static func tenths(_ value: Int) -> String {
        value % 10 == 0 ? "\(value / 10)" : "\(value / 10).\(value % 10)"
    }
}
