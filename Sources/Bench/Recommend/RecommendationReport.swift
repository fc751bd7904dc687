import Foundation

extension ReportTables {
    /// Each recommended setting, its value and the figure behind it.
    public static func recommendation(_ recommendation: Recommendation) -> TextTable {
        var table = TextTable([("setting", .left), ("value", .left), ("because", .left)])
        for reason in recommendation.reasons { table.append([reason.setting, reason.value, reason.because]) }
        return table
    }

    /// The memory and disk curves the knees were read from.
    public static func recommendationCurves(_ recommendation: Recommendation, style: ReportStyle = .human) -> TextTable {
        let network = recommendation.network
        var table = TextTable([("tier", .left), ("size", .right), ("hit ratio", .right)]
            + (network.map { [("image p95 ms on " + $0, .right)] } ?? [])
            + [(style == .human ? "MB downloaded" : "bytes downloaded", .right), ("knee", .left)])
        for (tier, curve, knee) in [("memory", recommendation.memoryCurve, recommendation.memoryBytes),
                                    ("memory and disk", recommendation.diskCurve, recommendation.diskBytes ?? -1)] {
            for point in curve {
                let time = network == nil ? [] : [point.p95Milliseconds.map { number($0, 1, style) } ?? ""]
                table.append([tier, size(point.bytes, style), percent(point.hitRatio, style)] + time
                             + [megabytes(point.bytesDownloaded, style), point.bytes == knee ? "◀" : ""])
            }
        }
        return table
    }
}

extension Charts {
    /// The memory (and disk) curve with the recommended size marked.
    static func recommendation(_ recommendation: Recommendation?, in directory: String) throws -> [String] {
        guard let recommendation else { return [] }
        var charts: [String] = []
        for (name, tier, curve, knee) in [
            ("recommend-memory", "memory", recommendation.memoryCurve, recommendation.memoryBytes),
            ("recommend-disk", "memory and disk", recommendation.diskCurve, recommendation.diskBytes ?? 0),
        ] where !curve.isEmpty {
            let points = curve.map { [Double($0.bytes) / 1_048_576, $0.hitRatio] }
            let top = curve.map(\.hitRatio).max() ?? 1
            try draw(name, in: directory, title: "Hit ratio against \(tier) size, with the recommended size", xLabel: "size (MiB)",
                     yLabel: "hit ratio", logX: true,
                     series: [("hit ratio", points), ("recommended", [[Double(knee) / 1_048_576, 0], [Double(knee) / 1_048_576, top]])])
            charts.append(name + ".svg")
        }
        return charts
    }
}
