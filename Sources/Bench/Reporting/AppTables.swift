import Foundation

extension ReportTables {
    /// Every run of `imagecache-bench apps`: the apps as shipped, each with one defect fixed, and the fixed pipeline.
    public static func apps(_ rows: [AppComparisonRow], style: ReportStyle = .human) -> TextTable {
        // The network's name in the header: a row's time means little without it.
        let network = rows.lazy.compactMap(\.timeToImage).first?.network
        let timeColumns: [(String, TextTable.Alignment)] = network.map { [("image p50 ms on " + $0, .right), ("image p95 ms", .right)] } ?? []
        var table = TextTable([
            ("trace", .left), ("preset", .left), ("defect fixed", .left), ("memory hit", .right), ("disk hit", .right),
            ("either", .right), ("wrong images", .right), ("stale", .right), ("unanswered", .right), ("duplicate downloads", .right),
            (style == .human ? "origin MB" : "origin bytes", .right), (style == .human ? "peak memory MB" : "peak memory bytes", .right),
            (style == .human ? "peak disk MB" : "peak disk bytes", .right), ("warnings", .right), ("recovered", .right),
            ("mean recovery s", .right), ("device", .left), ("app ended", .right), ("ended per hour", .right),
            ("interrupted sessions", .right), ("lost requests", .right), (style == .human ? "peak footprint MB" : "peak footprint bytes", .right),
        ] + timeColumns)
        for row in rows {
            let none = style == .human ? "—" : ""
            let times = network == nil ? [] : row.timeToImage.map { [number($0.overall.p50, 1, style), number($0.overall.p95, 1, style)] } ?? [none, none]
            table.append([
                row.trace, row.preset, row.fixedDefect ?? (style == .human ? "—" : ""), percent(row.memoryHitRatio, style),
                percent(row.diskHitRatio, style), percent(row.hitRatio, style), String(row.wrongImages), String(row.staleImages),
                String(row.unansweredRequests), String(row.duplicateDownloads), megabytes(row.originBytes, style),
                megabytes(row.peakMemoryBytes, style), megabytes(row.peakDiskBytes, style), String(row.warnings),
                String(row.recoveredWarnings), number(row.meanRecoverySeconds, 1, style), row.device ?? none,
                row.device == nil ? none : String(row.processEnds), row.device == nil ? none : number(row.processEndsPerHour, 1, style),
                row.device == nil ? none : "\(row.interruptedSessions)/\(row.sessions)", row.device == nil ? none : String(row.lostRequests),
                row.device == nil ? none : megabytes(row.peakFootprintBytes, style),
            ] + times)
        }
        return table
    }

    /// What each defect cost: per as-shipped preset, the fixed pipeline's
    /// change against it, then each defect's alone (the as-shipped run with
    /// only that defect fixed, minus the as-shipped run). Negative counts and
    /// bytes are what fixing saves.
    public static func appDefects(_ rows: [AppComparisonRow], style: ReportStyle = .human) -> TextTable {
        var table = TextTable([
            ("trace", .left), ("as shipped", .left), ("change", .left), ("either hit", .right), ("wrong images", .right),
            ("stale", .right), ("unanswered", .right), ("duplicate downloads", .right),
            (style == .human ? "origin MB" : "origin bytes", .right), (style == .human ? "peak memory MB" : "peak memory bytes", .right),
            (style == .human ? "peak disk MB" : "peak disk bytes", .right), ("app ended", .right), ("interrupted sessions", .right),
        ])
        for (shipped, single, fixed) in rows.groupedByShippedPreset {
            for (label, other) in [("the fixed pipeline", fixed)] + single.map({ ("fix " + $0.fixedDefect!, $0) }) {
                guard let other else { continue }
                func signed(_ value: Int) -> String { style == .human && value > 0 ? "+\(value)" : String(value) }
                func signedMB(_ value: Int) -> String {
                    let text = megabytes(value, style)
                    return style == .human && value > 0 ? "+" + text : text
                }
                let points = (other.hitRatio - shipped.hitRatio) * 100
                table.append([
                    shipped.trace, shipped.preset, label,
                    style == .human ? String(format: "%+.2f pt", points) : String(format: "%.6f", other.hitRatio - shipped.hitRatio),
                    signed(other.wrongImages - shipped.wrongImages), signed(other.staleImages - shipped.staleImages),
                    signed(other.unansweredRequests - shipped.unansweredRequests),
                    signed(other.duplicateDownloads - shipped.duplicateDownloads), signedMB(other.originBytes - shipped.originBytes),
                    signedMB(other.peakMemoryBytes - shipped.peakMemoryBytes), signedMB(other.peakDiskBytes - shipped.peakDiskBytes),
                    signed(other.processEnds - shipped.processEnds), signed(other.interruptedSessions - shipped.interruptedSessions),
                ])
            }
        }
        return table
    }
}

extension ReportTables {
    /// The apps' ports live against their presets' simulations: requests by where each answered them.
    public static func appsLive(_ checks: [AppLiveCheck]) -> TextTable {
        var table = TextTable([("trace", .left), ("preset", .left), ("sessions", .right), ("requests", .right), ("in flight", .right), ("answered", .left),
                               ("live", .right), ("simulated", .right), ("requests answered differently", .right),
                               ("in-flight model", .right), ("model: answered differently", .right), ("live seconds", .right)])
        for check in checks {
            for kind in Set(check.live.keys).union(check.simulated.keys).union(check.modelled.keys).sorted() {
                table.append([check.trace, check.preset, String(check.sessions), String(check.requests), String(check.inFlight), kind, String(check.live[kind] ?? 0),
                              String(check.simulated[kind] ?? 0), String(check.differingRequests), String(check.modelled[kind] ?? 0),
                              String(check.modelDifferingRequests), String(format: "%.1f", check.seconds)])
            }
        }
        return table
    }
}

extension Charts {
    /// Per as-shipped preset: each run's share of requests answered from a cache with the right
    /// picture, and its share shown wrong, stale or never answered, as shipped, each defect fixed
    /// alone, and the fixed pipeline.
    static func apps(_ rows: [AppComparisonRow], in directory: String) throws -> [String] {
        var charts: [String] = []
        for (shipped, single, fixed) in rows.groupedByShippedPreset {
            let runs = [shipped] + single + (fixed.map { [$0] } ?? [])
            func share(_ count: Int, _ row: AppComparisonRow) -> Double { row.requests == 0 ? 0 : Double(count) / Double(row.requests) }
            let bars = runs.map { row in
                let label = row.preset == PresetLibrary.fixedName ? "fixed pipeline" : row.fixedDefect.map { "fix " + $0 } ?? "as shipped"
                let wrong = share(row.wrongImages + row.staleImages + row.unansweredRequests, row)
                return (label, [max(row.hitRatio - share(row.wrongImages + row.staleImages, row), 0), wrong])
            }
            let name = "apps-" + fileSafe(shipped.preset)
            try drawBars(name, in: directory, title: "\(shipped.preset): what each fix changes", yLabel: "share of requests",
                         series: ["right picture from a cache", "wrong, stale or never answered"], rows: bars)
            charts.append(name + ".svg")
        }
        return charts
    }
}

extension [AppComparisonRow] {
    /// Each as-shipped run with its one-defect-fixed runs and the fixed pipeline's run of the same trace.
    var groupedByShippedPreset: [(shipped: AppComparisonRow, single: [AppComparisonRow], fixed: AppComparisonRow?)] {
        filter { $0.fixedDefect == nil && $0.preset != PresetLibrary.fixedName && $0.givenPipeline == nil }.map { shipped in
            (shipped,
             filter { $0.trace == shipped.trace && $0.preset == shipped.preset && $0.fixedDefect != nil },
             first { $0.trace == shipped.trace && $0.preset == PresetLibrary.fixedName })
        }
    }
}
