import CacheSimulation

extension ReportTables {
    /// Time to image per run, overall and by tier (runs with a network).
    public static func timeToImage(_ rows: [SimulationRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("keys", .left), ("policy", .left), ("memory", .right), ("disk", .right), ("network", .left),
            ("p50 ms", .right), ("p90 ms", .right), ("p95 ms", .right), ("p99 ms", .right),
            ("disk p95 ms", .right), ("origin p95 ms", .right), ("joined p95 ms", .right),
            (style == .human ? "MB on network" : "bytes on network", .right),
        ])
        for row in rows {
            guard let time = row.result.timeToImage else { continue }
            func p95(_ tier: TimeToImage.Tier) -> String { time.byTier[tier.rawValue].map { number($0.p95, 1, style) } ?? "" }
            table.append([
                row.trace, row.keyStrategy, row.policy, size(row.memoryBytes, style), size(row.diskBytes, style), time.network,
                number(time.overall.p50, 1, style), number(time.overall.p90, 1, style), number(time.overall.p95, 1, style),
                number(time.overall.p99, 1, style), p95(.disk), p95(.origin), p95(.joined), megabytes(time.networkBytes, style),
            ])
        }
        return table
    }
}
