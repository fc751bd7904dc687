import CacheSimulation

extension ReportTables {
    /// Time to image per run, overall and by tier (runs with a network), over the requests shown;
    /// beside it those never shown because their download timed out.
    public static func timeToImage(_ rows: [SimulationRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("keys", .left), ("policy", .left), ("memory", .right), ("disk", .right), ("network", .left),
            ("p50 ms", .right), ("p90 ms", .right), ("p95 ms", .right), ("p99 ms", .right),
            ("disk p95 ms", .right), ("origin p95 ms", .right), ("joined p95 ms", .right),
            (style == .human ? "MB on network" : "bytes on network", .right), ("timed out", .right),
        ])
        for row in rows {
            guard let time = row.result.timeToImage else { continue }
            func p95(_ tier: TimeToImage.Tier) -> String { time.byTier[tier.rawValue].map { number($0.p95, 1, style) } ?? "" }
            table.append([
                row.trace, row.keyStrategy, row.policy, size(row.memoryBytes, style), size(row.diskBytes, style),
                time.network + (time.arrivals.map { ", \($0)" } ?? ""),
                number(time.overall.p50, 1, style), number(time.overall.p90, 1, style), number(time.overall.p95, 1, style),
                number(time.overall.p99, 1, style), p95(.disk), p95(.origin), p95(.joined), megabytes(time.networkBytes, style),
                String(time.timedOut ?? 0),
            ])
        }
        return table
    }
}

extension ReportTables {
    /// Each trace's fitted network: the profile, its error on the recorded fetch times (MAPE,
    /// Spearman's ρ, the medians), and the presets' MAPE on the same fetches.
    public static func recordedNetworks(_ rows: [RecordedNetworkRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable(
            [("trace", .left), ("fetches", .right), ("fitted rtt ms", .right), ("fitted down Mbit/s", .right), ("recorded p50 ms", .right),
             ("simulated p50 ms", .right), ("MAPE", .right), ("ρ", .right)]
                + RecordedNetworkRow.comparedPresets.map { ("MAPE on \($0)", .right) })
        for row in rows {
            let fit = row.agreement
            table.append(
                [row.trace, String(fit.fetches), number(row.profile.rttMilliseconds, 1, style), number(row.profile.downlinkBitsPerSecond / 1e6, 2, style),
                 number(fit.recordedP50, 1, style), number(fit.simulatedP50, 1, style), percent(fit.mape, style), number(fit.spearman, 2, style)]
                    + RecordedNetworkRow.comparedPresets.map { row.presets[$0].map { percent($0.mape, style) } ?? "" })
        }
        return table
    }
}

extension ReportTables {
    /// Live replays through a shaped network: live's time to image against the clocked
    /// model's, overall and per tier, with the error over per-request times.
    public static func replayTimes(_ reports: [LiveReplayReport], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("network", .left), ("tier", .left), ("live n", .right), ("model n", .right),
            ("live p50 ms", .right), ("model p50 ms", .right), ("live p90 ms", .right), ("model p90 ms", .right),
            ("MAPE", .right), ("ρ", .right), ("ρ ceiling", .right), ("compared", .right),
        ])
        for report in reports {
            guard let time = report.timeToImage else { continue }
            for row in time.rows {
                let overall = row.tier == "overall"
                table.append([
                    report.trace, overall ? time.network : "", row.tier, String(row.live.count), String(row.simulated.count),
                    number(row.live.p50, 1, style), number(row.simulated.p50, 1, style),
                    number(row.live.p90, 1, style), number(row.simulated.p90, 1, style),
                    overall ? percent(time.mape, style) : "", overall ? number(time.spearman, 2, style) : "",
                    overall ? number(time.spearmanCeiling, 2, style) : "", overall ? String(time.compared) : "",
                ])
            }
        }
        return table
    }
}
