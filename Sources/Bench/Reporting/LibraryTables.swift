extension ReportTables {
    /// Each library's defaults on each trace beside the best settings at the memory they held.
    public static func libraries(_ rows: [LibraryComparisonRow], style: ReportStyle = .human) -> TextTable {
        let network = rows.lazy.compactMap(\.defaults.timeToImage).first?.network
        let none = style == .human ? "—" : ""
        var table = TextTable([
            ("trace", .left), ("library", .left), (style == .human ? "memory MB" : "memory bytes", .right), ("either hit", .right),
            ("wrong images", .right), (style == .human ? "origin MB" : "origin bytes", .right), ("warnings", .right), ("app ended", .right),
        ] + (network.map { [("image p95 ms on " + $0, .right)] } ?? []) + [
            ("best settings", .left), ("tuned either hit", .right), ("tuning buys", .right),
            (style == .human ? "tuned origin MB" : "tuned origin bytes", .right), ("tuned app ended", .right),
        ] + (network == nil ? [] : [("tuned image p95 ms", .right)]))
        for row in rows {
            func p95(_ figures: LibraryComparisonRow.Figures) -> [String] {
                network == nil ? [] : [figures.timeToImage.map { number($0.overall.p95, 1, style) } ?? none]
            }
            table.append([
                row.trace, row.library, megabytes(row.memoryBytes, style), percent(row.defaults.hitRatio, style),
                String(row.defaults.wrongImages), megabytes(row.defaults.originBytes, style), String(row.defaults.warnings),
                String(row.defaults.processEnds),
            ] + p95(row.defaults) + [
                row.tunedPolicy.map { "fixed, " + $0 } ?? "its defaults", percent(row.tuned.hitRatio, style),
                style == .human ? String(format: "%+.1f pt", row.tuningGain * 100) : String(format: "%.6f", row.tuningGain),
                megabytes(row.tuned.originBytes, style), String(row.tuned.processEnds),
            ] + p95(row.tuned))
        }
        return table
    }
}
