extension BenchResults {
    /// Flattens the sections into the figures `gate` compares: hit ratios,
    /// wrong and stale images and origin bytes are deterministic; speeds and
    /// latencies are timings.
    public mutating func deriveFigures() {
        figures.removeAll()
        for row in simulations {
            // A pipeline is named by its file: its keys, decode and coalescing are not in a matrix cell's id.
            let cell = row.pipeline.map { "pipeline-\($0)/\(row.warnings)" }
                ?? "\(row.keyStrategy)/\(row.policy)/m\(row.memoryBytes)/d\(row.diskBytes.map(String.init) ?? "none")/\(row.warnings)/\(row.reaction)"
            let id = "simulate/\(row.trace)/\(cell)" + (row.network.map { "/" + $0 } ?? "")
            add(Figure(id + "/hitRatio", row.result.hitRatio, better: .higher))
            add(Figure(id + "/combinedHitRatio", row.result.combinedHitRatio, better: .higher))
            add(Figure(id + "/bytesDownloaded", Double(row.result.bytesDownloaded), better: .lower))
            add(Figure(id + "/wrongImages", Double(row.result.wrongImages), better: .lower))
            add(Figure(id + "/staleImages", Double(row.result.staleImages), better: .lower))
            if let time = row.result.timeToImage {
                add(Figure(id + "/timeToImageP50", time.overall.p50, better: .lower))
                add(Figure(id + "/timeToImageP95", time.overall.p95, better: .lower))
                add(Figure(id + "/timedOut", Double(time.timedOut ?? 0), better: .lower))
            }
        }
        for row in keyComparisons {
            let id = "keys/\(row.trace)/\(row.keyStrategy)"
            add(Figure(id + "/hitRatio", row.hitRatio, better: .higher))
            add(Figure(id + "/wrongImages", Double(row.wrongImages), better: .lower))
            add(Figure(id + "/unusableFileNames", Double(row.unusableFileNames), better: .lower))
        }
        for point in sweeps where point.hitRatio.isFinite {
            let sampled = point.sampleRate.map { "/sampled\($0)" } ?? ""
            add(Figure("sweep/\(point.trace)/\(point.keyStrategy)/\(point.policy)/m\(point.memoryBytes)\(sampled)/hitRatio", point.hitRatio, better: .higher))
        }
        for row in memoryWarnings {
            let id = "memwarn/\(row.trace)/\(row.source)/\(row.reaction)"
            add(Figure(id + "/hitRatioLoss", row.hitRatioLoss, better: .lower))
            add(Figure(id + "/refetchedBytes", Double(row.refetchedBytes), better: .lower))
        }
        for row in apps ?? [] {
            let id = "apps/\(row.trace)/\(row.preset)" + (row.fixedDefect.map { "/fix-" + $0 } ?? "")
            add(Figure(id + "/hitRatio", row.hitRatio, better: .higher))
            add(Figure(id + "/memoryHitRatio", row.memoryHitRatio, better: .higher))
            add(Figure(id + "/wrongImages", Double(row.wrongImages), better: .lower))
            add(Figure(id + "/staleImages", Double(row.staleImages), better: .lower))
            add(Figure(id + "/unansweredRequests", Double(row.unansweredRequests), better: .lower))
            add(Figure(id + "/duplicateDownloads", Double(row.duplicateDownloads), better: .lower))
            add(Figure(id + "/originBytes", Double(row.originBytes), better: .lower))
            add(Figure(id + "/peakMemoryBytes", Double(row.peakMemoryBytes), better: .lower))
            if row.device != nil {
                add(Figure(id + "/processEnds", Double(row.processEnds), better: .lower))
                add(Figure(id + "/interruptedSessions", Double(row.interruptedSessions), better: .lower))
                add(Figure(id + "/lostRequests", Double(row.lostRequests), better: .lower))
                add(Figure(id + "/peakFootprintBytes", Double(row.peakFootprintBytes), better: .lower))
            }
            if let time = row.timeToImage {
                add(Figure(id + "/\(time.network)/timeToImageP50", time.overall.p50, better: .lower))
                add(Figure(id + "/\(time.network)/timeToImageP95", time.overall.p95, better: .lower))
                add(Figure(id + "/\(time.network)/timedOut", Double(time.timedOut ?? 0), better: .lower))
            }
        }
        for row in libraries ?? [] {
            for (name, figures) in [("defaults", row.defaults), ("tuned", row.tuned)] {
                let id = "libraries/\(row.trace)/\(row.library)/\(name)"
                add(Figure(id + "/hitRatio", figures.hitRatio, better: .higher))
                add(Figure(id + "/wrongImages", Double(figures.wrongImages), better: .lower))
                add(Figure(id + "/originBytes", Double(figures.originBytes), better: .lower))
                add(Figure(id + "/processEnds", Double(figures.processEnds), better: .lower))
                if let time = figures.timeToImage {
                    add(Figure(id + "/\(time.network)/timeToImageP95", time.overall.p95, better: .lower))
                    add(Figure(id + "/\(time.network)/timedOut", Double(time.timedOut ?? 0), better: .lower))
                }
            }
        }
        for report in replays {
            let id = "replay/\(report.trace)"
            add(Figure(id + "/requestsPerSecond", report.requestsPerSecond, kind: .timing, better: .higher))
            for (source, summary) in report.latency {
                add(Figure(id + "/\(source)/p99Milliseconds", summary.p99, kind: .timing, better: .lower))
            }
            add(Figure(id + "/peakResidentBytes", Double(report.peakResidentBytes), kind: .timing, better: .lower))
        }
        // A configuration two sections both simulate (the suite's default one is also in its
        // policy table) gives one figure: gate refuses a file that names a figure twice.
        var seen = Set<String>()
        figures.removeAll { !seen.insert($0.id).inserted }
    }
}

extension Figure {
    /// The values this figure can take: a ratio lies in [0, 1], a count, a size or a
    /// speed is at least 0; anything else only has to be finite.
    public var validRange: ClosedRange<Double> {
        let name = id.split(separator: "/").last.map(String.init) ?? id
        if name.hasSuffix("Ratio") { return 0...1 }
        let counts: Set<String> = [
            "bytesDownloaded", "wrongImages", "staleImages", "unusableFileNames", "unansweredRequests", "duplicateDownloads",
            "originBytes", "peakMemoryBytes", "requestsPerSecond", "p99Milliseconds", "peakResidentBytes",
        ]
        return counts.contains(name) ? 0...Double.greatestFiniteMagnitude : -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude
    }
}

extension BenchResults {
    /// Refuses a figure that is not finite, lies outside what it can be (a ratio of 1.5, a
    /// count of -3), or appears twice; `source` names the file in the message.
    public func checkFigures(source: String) throws(GateError) {
        var seen = Set<String>()
        for figure in figures {
            guard figure.value.isFinite else { throw .nonFinite(source, id: figure.id, value: figure.value) }
            guard figure.validRange.contains(figure.value) else { throw .outOfRange(source, id: figure.id, value: figure.value, range: figure.validRange) }
            guard seen.insert(figure.id).inserted else { throw .duplicateFigure(source, id: figure.id) }
        }
    }
}

extension BenchResults {
    /// Drops the sections, keeping what a baseline needs: the figures, sorted by name.
    public mutating func keepOnlyFigures() {
        simulations = []
        keyComparisons = []
        sweeps = []
        memoryWarnings = []
        apps = nil
        recommendation = nil
        appsLive = nil
        fidelity = nil
        replays = []
        figures.sort { $0.id < $1.id }
    }
}
