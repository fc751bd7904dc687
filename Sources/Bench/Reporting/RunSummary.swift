import CacheSimulation
import ImagePipeline
import Foundation

/// What a run found, on one screen (at most 100 columns): per dataset the default settings' hit
/// ratio and the best deployable policy at the same size, per app what its pipeline as shipped
/// gives against the fixed one and its costliest defect, and the live check's verdict with the
/// in-flight model's error. The terminal shows it instead of the tables (`--verbose` for those);
/// `report.md` opens with it.
public enum RunSummary {
    /// The names of the policies kept to cross-check other tools (`EvictionPolicyKind.isReferenceVariant`).
    public static let referenceVariants = Set(EvictionPolicyKind.allCases.filter(\.isReferenceVariant).map(\.description))

    public static let width = 100

    public static func lines(_ results: BenchResults) -> [String] {
        var lines: [String] = []
        let datasets = datasetLines(results.simulations)
        if !datasets.isEmpty {
            lines.append(results.simulations.first?.pipeline.map { "Hits from either tier, the pipeline \($0):" }
                ?? "Hits from either tier, default settings against the best deployable policy at their size:")
            lines += datasets
        }
        let times = timeLines(results.simulations)
        if let network = results.simulations.first(where: { $0.result.timeToImage != nil })?.result.timeToImage?.network, !times.isEmpty {
            let settings = results.simulations.first?.pipeline.map { "the pipeline \($0)" } ?? "default settings"
            lines.append("Time to image on \(network), \(settings) (p50 / p95; images still loading when the app ended):")
            lines += times
        }
        let apps = appLines(results.apps ?? [])
        if !apps.isEmpty {
            let device = results.apps?.first?.device.map { " on \($0)" } ?? ""
            lines.append("The apps as shipped against the fixed pipeline\(device) (either tier; costliest defect alone):")
            lines += apps
        }
        let appTimes = appTimeLines(results.apps ?? [])
        if let network = results.apps?.lazy.compactMap(\.timeToImage).first?.network, !appTimes.isEmpty {
            lines.append("Time to image on \(network), the apps as shipped against the fixed pipeline (p50, p95):")
            lines += appTimes
        }
        let libraries = libraryLines(results.libraries ?? [])
        if !libraries.isEmpty {
            lines.append("The libraries' defaults closest to the best settings at their memory, and what tuning buys:")
            lines += libraries
        }
        for replay in results.replays {
            let verdict = replay.agrees
                ? "agrees with the simulator on every request"
                : "NO: \(replay.exact.differingRequests) requests differ from the simulator"
            lines.append("Live replay of \(replay.trace) (\(replay.requests) requests): \(verdict);")
            lines.append(String(format: "  the in-flight model, which knows only the trace, differs on %.1f%% of them",
                                Double(replay.modelDifferingRequests) / Double(max(replay.requests, 1)) * 100))
        }
        if let gate = results.gate {
            let name = URL(fileURLWithPath: gate.baseline).lastPathComponent
            lines.append("Gate against \(name): \(gate.compared) figures, \(gate.regressions.count) regressed, "
                         + "\(gate.improvements) improved, \(gate.new) new" + (gate.regressions.isEmpty ? "" : ":"))
            lines += gate.regressions.prefix(8).map { "  ✗ " + $0 }
            if gate.regressions.count > 8 { lines.append("  … and \(gate.regressions.count - 8) more (imagecache-bench gate prints them all)") }
        }
        return lines.map { $0.count > width ? String($0.prefix(width - 1)) + "…" : $0 }
    }

    /// Per dataset: its first row (the run's default settings) and the best deployable policy
    /// among rows of the same keys and sizes.
    static func datasetLines(_ rows: [SimulationRow]) -> [String] {
        var order: [String] = []
        var byTrace: [String: [SimulationRow]] = [:]
        for row in rows {
            if byTrace[row.trace] == nil { order.append(row.trace) }
            byTrace[row.trace, default: []].append(row)
        }
        let nameWidth = min(order.map(\.count).max() ?? 0, 28)
        return order.compactMap { trace in
            guard let rows = byTrace[trace], let first = rows.first else { return nil }
            let peers = rows.filter {
                $0.keyStrategy == first.keyStrategy && $0.memoryBytes == first.memoryBytes && $0.diskBytes == first.diskBytes
                    && $0.network == first.network && !referenceVariants.contains($0.policy)
            }
            var line = "  " + pad(trace, nameWidth) + "  \(first.policy) " + percent(first.result.combinedHitRatio)
                + " at " + ByteSize.format(first.memoryBytes)
            if let best = peers.max(by: { $0.result.combinedHitRatio < $1.result.combinedHitRatio }), best.policy != first.policy,
               best.result.combinedHitRatio > first.result.combinedHitRatio {
                line += ";  best \(best.policy) " + percent(best.result.combinedHitRatio)
                    + String(format: " (%+.1f pt)", (best.result.combinedHitRatio - first.result.combinedHitRatio) * 100)
            } else if peers.count > 1 {
                line += ";  no deployable policy does better"
            }
            return line
        }
    }

    /// Per dataset, its first timed row's time to image.
    static func timeLines(_ rows: [SimulationRow]) -> [String] {
        var seen: Set<String> = []
        let firsts = rows.filter { $0.network != nil && seen.insert($0.trace).inserted }
        let nameWidth = min(firsts.map(\.trace.count).max() ?? 0, 28)
        return firsts.compactMap { row in
            guard let time = row.result.timeToImage else { return nil }
            return "  " + pad(row.trace, nameWidth) + "  " + duration(time.overall.p50) + " / " + duration(time.overall.p95)
                + (time.neverShown > 0 ? "; \(time.neverShown) never shown" : "")
                + ((time.timedOut ?? 0) > 0 ? "; \(time.timedOut ?? 0) timed out" : "")
        }
    }

    /// A time to image for people: milliseconds under a second, seconds above, and the clock's
    /// cap (2³² µs, `TimeToImageRecorder`) said as such.
    public static func duration(_ milliseconds: Double) -> String {
        if milliseconds >= Double(UInt32.max) / 1000 { return "over 71 min" }
        if milliseconds >= 10_000 { return String(format: "%.0f s", milliseconds / 1000) }
        if milliseconds >= 1_000 { return String(format: "%.1f s", milliseconds / 1000) }
        return String(format: "%.0f ms", milliseconds)
    }

    static func appTimeLines(_ rows: [AppComparisonRow]) -> [String] {
        rows.groupedByShippedPreset.compactMap { shipped, _, fixed in
            guard let time = shipped.timeToImage else { return nil }
            var line = "  " + pad(shipped.preset, 26) + " " + duration(time.overall.p50) + ", " + duration(time.overall.p95)
            if let fixed = fixed?.timeToImage {
                line += " → fixed " + duration(fixed.overall.p50) + ", " + duration(fixed.overall.p95)
            }
            return line
        }
    }

    /// Per dataset, the library whose defaults come closest to the best settings at the memory they
    /// held (the fewest points of hits left), and what those settings would add.
    static func libraryLines(_ rows: [LibraryComparisonRow]) -> [String] {
        var order: [String] = []
        var closest: [String: LibraryComparisonRow] = [:]
        for row in rows {
            guard let held = closest[row.trace] else {
                order.append(row.trace)
                closest[row.trace] = row
                continue
            }
            if row.tuningGain < held.tuningGain { closest[row.trace] = row }
        }
        let nameWidth = min(order.map(\.count).max() ?? 0, 28)
        return order.compactMap { trace in
            guard let row = closest[trace] else { return nil }
            var line = "  " + pad(trace, nameWidth) + "  \(row.library) " + percent(row.defaults.hitRatio)
            guard let policy = row.tunedPolicy else { return line + "; nothing tuned does better" }
            line += String(format: "; fixed, %@: %+.1f pt", policy, row.tuningGain * 100)
            let saved = row.defaults.originBytes - row.tuned.originBytes
            if saved > 0 { line += ", −" + ByteSize.format(saved) }
            if let before = row.defaults.timeToImage?.overall.p95, let after = row.tuned.timeToImage?.overall.p95, duration(before) != duration(after) {
                line += ", p95 " + duration(before) + " → " + duration(after)
            }
            return line
        }
    }

    static func appLines(_ rows: [AppComparisonRow]) -> [String] {
        rows.groupedByShippedPreset.map { shipped, single, fixed in
            var line = "  " + pad(shipped.preset, 26) + " " + percent(shipped.hitRatio)
            if let fixed { line += " → fixed " + percent(fixed.hitRatio) }
            if shipped.processEnds > 0 { line += ", app ended \(shipped.processEnds)×" }
            if let costliest = costliest(shipped, single) { line += "; " + costliest }
            return line
        }
    }

    /// The defect whose fix alone changes most: wrong images first, then requests never
    /// answered, then ends of the app, then bytes downloaded.
    static func costliest(_ shipped: AppComparisonRow, _ single: [AppComparisonRow]) -> String? {
        func gains(_ row: AppComparisonRow) -> [Int] {
            [shipped.wrongImages - row.wrongImages, shipped.unansweredRequests - row.unansweredRequests,
             shipped.processEnds - row.processEnds, shipped.originBytes - row.originBytes]
        }
        guard let best = single.max(by: { gains($0).lexicographicallyPrecedes(gains($1)) }), let defect = best.fixedDefect else { return nil }
        let gain = gains(best)
        let what = gain[0] > 0 ? "\(gain[0]) wrong images" : gain[1] > 0 ? "\(gain[1]) requests never answered"
            : gain[2] > 0 ? "\(gain[2]) ends of the app" : gain[3] > 0 ? "\(gain[3] / 1_000_000) MB downloaded" : nil
        return what.map { "\(defect): \($0)" }
    }

    private static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }
}
