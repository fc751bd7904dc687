import Foundation
import Workloads
import CacheSimulation

/// Trace statistics as a table for people (one row per trace).
public enum TraceStatisticsTable {
    public static func render(_ traces: [(name: String, statistics: TraceStatistics)]) -> String {
        let strategies = TraceStatistics.hazardStrategies.map(\.description)
        var table = TextTable([("trace", .left), ("sessions", .right), ("images", .right), ("cancels", .right), ("API", .right),
                               ("URLs", .right), ("contents", .right), ("MB asked", .right), ("MB unique", .right), ("reuse", .right),
                               ("dist p50/p90/p99", .right)] + strategies.map { ("wrong key: \($0)", .right) })
        for (name, s) in traces {
            table.append([name, "\(s.sessions)", "\(s.imageRequests)", "\(s.cancels)", "\(s.apiRequests)", "\(s.uniqueURLs)",
                          "\(s.uniqueContents)", ReportTables.megabytes(s.requestedBytes, .human), ReportTables.megabytes(s.uniqueBytes, .human),
                          String(format: "%.1f%%", s.reuseRatio * 100),
                          "\(s.reuseDistanceP50)/\(s.reuseDistanceP90)/\(s.reuseDistanceP99)"]
                         + strategies.map { "\(s.wrongKeyHazards[$0] ?? 0)" })
        }
        return table.render()
    }

    /// Plain traces (no sessions, URLs or pictures): their own columns.
    public static func render(plain traces: [(name: String, statistics: PlainTraceStatistics)]) -> String {
        var table = TextTable([("trace", .left), ("requests", .right), ("keys", .right), ("MB asked", .right), ("MB unique", .right),
                               ("reuse", .right), ("one-hit keys", .right), ("dist p50/p90/p99", .right), ("size median/max", .right),
                               ("top 1% keys", .right), ("seconds", .right)])
        for (name, s) in traces {
            table.append([name, "\(s.requests)", "\(s.keys)", ReportTables.megabytes(s.requestedBytes, .human),
                          ReportTables.megabytes(s.uniqueBytes, .human), String(format: "%.1f%%", s.reuseRatio * 100),
                          String(format: "%.1f%%", s.oneHitWonderRatio * 100),
                          "\(s.reuseDistanceP50)/\(s.reuseDistanceP90)/\(s.reuseDistanceP99)", "\(s.medianSize)/\(s.largestSize)",
                          String(format: "%.1f%%", s.topOnePercentShare * 100), String(format: "%.0f", s.durationSeconds)])
        }
        return table.render()
    }
}
