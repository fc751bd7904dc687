import Foundation

/// The tables every command prints and writes: `.human` for terminals and
/// Markdown (percentages, MB), `.machine` for CSV (raw numbers).
public enum ReportStyle: Sendable { case human, machine }

public enum ReportTables {
    static func percent(_ value: Double, _ style: ReportStyle) -> String {
        guard value.isFinite else { return "" }
        return style == .human ? String(format: "%.2f%%", value * 100) : String(format: "%.6f", value)
    }

    public static func megabytes(_ bytes: Int, _ style: ReportStyle) -> String {
        style == .human ? String(format: "%.1f", Double(bytes) / 1e6) : String(bytes)
    }

    static func size(_ bytes: Int?, _ style: ReportStyle) -> String {
        guard let bytes else { return style == .human ? "none" : "" }
        return style == .human ? ByteSize.format(bytes) : String(bytes)
    }

    static func number(_ value: Double, _ digits: Int = 1, _ style: ReportStyle) -> String {
        guard value.isFinite else { return "" }
        return String(format: style == .human ? "%.\(digits)f" : "%.6f", value)
    }

    public static func simulations(_ rows: [SimulationRow], style: ReportStyle = .human) -> TextTable {
        // Runs with a network add their time to image.
        let timed = rows.contains { $0.result.timeToImage != nil }
        var columns: [(String, TextTable.Alignment)] = [
            ("trace", .left), ("keys", .left), ("policy", .left), ("memory", .right), ("disk", .right), ("warnings", .left),
            ("hit", .right), ("byte hit", .right), ("disk hit", .right), ("either", .right), ("origin fetches", .right),
            (style == .human ? "MB down" : "bytes down", .right), ("wrong", .right), ("stale", .right), ("evictions", .right),
            ("Belady", .right), ("bound", .right), ("gap to Belady", .right),
        ]
        if timed { columns += [("image p50 ms", .right), ("image p95 ms", .right), ("network", .left)] }
        // Rows of a pipeline file name it first: its keys, decode and coalescing are in no other column.
        let piped = rows.contains { $0.pipeline != nil }
        if piped { columns.insert(("pipeline", .left), at: 0) }
        var table = TextTable(columns)
        for row in rows {
            let result = row.result
            var cells: [String] = piped ? [row.pipeline ?? ""] : []
            cells += [
                row.trace, row.keyStrategy, row.policy, size(row.memoryBytes, style), size(row.diskBytes, style),
                row.warnings == "trace" ? row.reaction : "\(row.warnings) \(row.reaction)",
                percent(result.hitRatio, style), percent(result.byteHitRatio, style), percent(row.diskHitRatio, style),
                percent(result.combinedHitRatio, style), String(Int(result.originFetches.rounded())),
                megabytes(result.bytesDownloaded, style), String(result.wrongImages), String(result.staleImages),
                String(result.statistics.evictions),
                row.bounds.map { percent($0.belady, style) } ?? "", row.bounds.map { percent($0.objectBound, style) } ?? "",
                row.bounds.map { percent($0.belady - result.hitRatio, style) } ?? "",
            ]
            if timed {
                let time = result.timeToImage
                cells += [time.map { number($0.overall.p50, 1, style) } ?? "", time.map { number($0.overall.p95, 1, style) } ?? "", time?.network ?? ""]
            }
            table.append(cells)
        }
        return table
    }

    public static func keys(_ rows: [KeyComparisonRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("keys", .left), ("hit", .right), ("either", .right), ("wrong images", .right),
            ("wrong rate", .right), ("stale", .right), ("distinct keys", .right), ("URLs", .right), ("not file names", .right),
        ])
        for row in rows {
            table.append([
                row.trace, row.keyStrategy, percent(row.hitRatio, style), percent(row.combinedHitRatio, style),
                String(row.wrongImages), percent(row.wrongImageRate, style), String(row.staleImages), String(row.distinctKeys),
                String(row.distinctURLs), String(row.unusableFileNames),
            ])
        }
        return table
    }

    /// The worst collisions of each strategy, as readable lines.
    public static func collisions(_ rows: [KeyComparisonRow]) -> String {
        rows.filter { !$0.worstCollisions.isEmpty }.map { row in
            "\(row.trace), \(row.keyStrategy):\n" + row.worstCollisions.map {
                "  key \"\($0.key.prefix(60))\" names \($0.pictures) pictures, asked \($0.requests)×:\n    \($0.first)\n    \($0.second)"
            }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    public static func sweep(_ points: [SweepPoint], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("keys", .left), ("policy", .left), ("memory", .right), ("of footprint", .right),
            ("hit", .right), ("byte hit", .right), ("miss", .right),
        ])
        for point in points {
            table.append([
                point.trace, point.keyStrategy, point.policy, size(point.memoryBytes, style), percent(point.fraction, style),
                percent(point.hitRatio, style), percent(point.byteHitRatio, style), percent(point.missRatio, style),
            ])
        }
        return table
    }

    public static func warnings(_ rows: [WarningComparisonRow], style: ReportStyle = .human) -> TextTable {
        let network = rows.lazy.compactMap(\.timeToImage).first?.network
        let timeColumns: [(String, TextTable.Alignment)] = network.map {
            [("image p95 ms on " + $0, .right), ("p95 added ms", .right), ("mean added ms", .right)]
        } ?? []
        var table = TextTable([
            ("trace", .left), ("warnings from", .left), ("reaction", .left), ("warnings", .right), ("hit", .right),
            ("without warnings", .right), ("hit lost", .right), ("disk re-reads", .right), ("refetches", .right),
            (style == .human ? "MB refetched" : "bytes refetched", .right), (style == .human ? "extra MB" : "extra bytes", .right),
            ("recovered", .right), ("mean recovery s", .right), ("longest s", .right), ("app ended", .right),
        ] + timeColumns)
        for row in rows {
            var times: [String] = []
            if network != nil, let time = row.timeToImage?.overall, let without = row.baselineTimeToImage?.overall {
                times = [number(time.p95, 1, style), number(time.p95 - without.p95, 1, style), number(time.mean - without.mean, 2, style)]
            } else if network != nil {
                times = Array(repeating: style == .human ? "—" : "", count: 3)
            }
            table.append([
                row.trace, row.source, row.reaction, String(row.warnings), percent(row.hitRatio, style),
                percent(row.baselineHitRatio, style), percent(row.hitRatioLoss, style), String(row.diskRereads), String(row.refetches),
                megabytes(row.refetchedBytes, style), megabytes(row.extraBytesDownloaded, style), String(row.recovered),
                number(row.meanRecoverySeconds, 1, style), number(row.longestRecoverySeconds, 1, style),
                row.processEnds.map(String.init) ?? (style == .human ? "—" : ""),
            ] + times)
        }
        return table
    }

    public static func replays(_ reports: [LiveReplayReport], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("requests", .right), ("req/s", .right), ("memory p50/p99 ms", .right), ("disk p50/p99 ms", .right),
            ("origin p50/p99 ms", .right), ("joined p50/p99 ms", .right), ("origin requests", .right),
            (style == .human ? "origin MB" : "origin bytes", .right), ("joined", .right), ("stopped transfers", .right),
            ("failed", .right), (style == .human ? "peak RSS MB" : "peak RSS bytes", .right), ("live hit / either", .right),
            ("model hit / either", .right), ("exact (observed order)", .left),
        ])
        for report in reports {
            func latency(_ source: String) -> String {
                guard let summary = report.latency[source] else { return "" }
                return number(summary.p50, 2, style) + "/" + number(summary.p99, 2, style)
            }
            table.append([
                report.trace, String(report.requests), number(report.requestsPerSecond, 0, style), latency("memory"), latency("disk"),
                latency("origin"), latency("joined"), String(report.originRequests), megabytes(report.originBytes, style),
                String(report.joinedWaiters), String(report.stoppedTransfers), String(report.failed),
                megabytes(report.peakResidentBytes, style),
                percent(report.liveHitRatio, style) + " / " + percent(report.liveCombinedHitRatio, style),
                percent(report.simulatedHitRatio, style) + " / " + percent(report.simulatedCombinedHitRatio, style),
                report.agrees
                    ? "yes: \(report.requests) of \(report.requests) alike"
                    : "NO: \(report.exact.differingRequests) of \(report.requests) differ",
            ])
        }
        return table
    }

    /// Live against the in-flight model (the replay's concurrency as `inFlight`), count by
    /// count: the model's error, where live requests finished in another order than it assumes.
    public static func replayAgreement(_ reports: [LiveReplayReport], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("memory hits live/sim", .right), ("disk hits live/sim", .right),
            ("cancelled live/sim", .right), ("offline live/sim", .right), ("joins live/sim", .right),
            ("shared downloads live/sim", .right), ("memory Δ pt", .right), ("either Δ pt", .right),
            ("model answered differently", .right), ("by answer (live / model)", .left),
        ])
        for report in reports {
            let counts = report.comparison
            table.append([
                report.trace, "\(counts.liveMemoryHits)/\(counts.simulatedMemoryHits)", "\(counts.liveDiskHits)/\(counts.simulatedDiskHits)",
                "\(counts.liveCancelled)/\(counts.simulatedCancelled)", "\(counts.liveOffline)/\(counts.simulatedOffline)",
                "\(counts.liveJoins)/\(counts.simulatedJoins)", "\(counts.liveSharedDownloads)/\(counts.simulatedSharedDownloads)",
                number((report.liveHitRatio - report.simulatedHitRatio) * 100, 2, style),
                number((report.liveCombinedHitRatio - report.simulatedCombinedHitRatio) * 100, 2, style),
                percent(Double(report.modelDifferingRequests) / Double(max(report.requests, 1)), style),
                counts.differences.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }.joined(separator: ", "),
            ])
        }
        return table
    }
}

extension ReportTables {
    /// What the phone did to each run that had one (`--device`): nothing for runs without.
    public static func devices(_ rows: [SimulationRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("keys", .left), ("policy", .left), ("memory", .right), ("device", .left), ("app ended", .right),
            ("ended per hour", .right), ("interrupted sessions", .right), ("lost requests", .right), ("its warnings", .right),
            (style == .human ? "peak footprint MB" : "peak footprint bytes", .right), (style == .human ? "limit MB" : "limit bytes", .right),
        ])
        for row in rows {
            guard let device = row.result.device else { continue }
            table.append([
                row.trace, row.keyStrategy, row.policy, size(row.memoryBytes, style), device.device.name, String(device.processEnds),
                number(device.processEndsPerHour, 1, style), "\(device.interruptedSessions)/\(device.sessions)", String(device.lostRequests),
                String(device.warnings), megabytes(device.peakFootprintBytes, style), megabytes(device.device.limitBytes, style),
            ])
        }
        return table
    }

    /// Live and simulated ends of the app, for replays on a phone.
    public static func replayDevices(_ reports: [LiveReplayReport], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("device", .left), ("app ended live/sim", .right), ("lost requests", .right),
            ("interrupted sessions", .right), ("its warnings", .right), (style == .human ? "peak footprint MB" : "peak footprint bytes", .right),
        ])
        for report in reports {
            guard let device = report.device else { continue }
            let simulated = device.simulated
            table.append([
                report.trace, simulated.device.name, "\(device.liveProcessEnds)/\(simulated.processEnds)", String(simulated.lostRequests),
                "\(simulated.interruptedSessions)/\(simulated.sessions)", String(simulated.warnings), megabytes(simulated.peakFootprintBytes, style),
            ])
        }
        return table
    }
}
