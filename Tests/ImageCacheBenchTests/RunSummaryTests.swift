import Foundation
import Testing
import Bench
import CacheSimulation

@Suite("What a run found, first: the summary on one screen and a report that fits a pull request")
struct RunSummaryTests {
    /// The apps on every committed dataset, and a policy comparison at the default size with a reference variant.
    static let results: BenchResults = {
        var results = BenchResults(command: "test")
        results.apps = AppPresetTests.rows
        let workload = try? RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        var matrix = SimulationMatrix()
        matrix.policies = [.lru, .sieve, .s3fifo(moveToMainThreshold: 1), .lirs, .wTinyLFULibCacheSim]
        matrix.memorySizes = [.bytes(2 << 20)]
        matrix.bounds = false
        matrix.network = NetworkProfile.presets.first { $0.name == "slow-4g" }
        results.simulations = workload.map { matrix.run([$0]) } ?? []
        return results
    }()

    @Test("one screen: at most 40 lines of at most 100 columns, figures as results.json holds them")
    func oneScreen() throws {
        let lines = RunSummary.lines(Self.results)
        #expect(!lines.isEmpty && lines.count <= 40 && lines.allSatisfy { $0.count <= RunSummary.width && !$0.hasSuffix("…") },
                "\(lines.joined(separator: "\n"))")
        for shipped in Self.results.apps! where shipped.fixedDefect == nil && shipped.preset != "fixed" {
            let line = try #require(lines.first { $0.contains(shipped.preset) }, "\(shipped.preset)")
            #expect(line.contains(String(format: "%.1f%%", shipped.hitRatio * 100)), "\(line)")
        }
        // The dataset's line names its first row and never a reference variant as the best.
        let dataset = try #require(lines.first { $0.contains("vanilladin-small") })
        let first = try #require(Self.results.simulations.first)
        #expect(dataset.contains("\(first.policy) " + String(format: "%.1f%%", first.result.combinedHitRatio * 100)))
        #expect(!RunSummary.referenceVariants.contains { dataset.contains("best \($0) ") }, "\(dataset)")
        // Its time to image, under a heading that names the network.
        let time = try #require(first.result.timeToImage)
        let heading = try #require(lines.firstIndex { $0.hasPrefix("Time to image on slow-4g") })
        #expect(lines[heading + 1].contains("vanilladin-small") && lines[heading + 1].contains(RunSummary.duration(time.overall.p50) + " / " + RunSummary.duration(time.overall.p95)), "\(lines[heading + 1])")
        // ArticleProject's costliest defect is its disk key, by the wrong images its fix alone removes.
        let apps = try #require(Self.results.apps)
        let shipped = try #require(apps.first { $0.preset == "articleproject-as-shipped" && $0.fixedDefect == nil })
        let diskKeyFixed = try #require(apps.first { $0.preset == "articleproject-as-shipped" && $0.fixedDefect == "disk-key" })
        let removed = shipped.wrongImages - diskKeyFixed.wrongImages
        #expect(removed > 0)
        #expect(lines.contains { $0.contains("articleproject-as-shipped") && $0.contains("disk-key: \(removed) wrong images") }, "\(lines)")
    }

    @Test("on a network, each app as shipped against the fixed pipeline in time to image; times said in ms, s, or as the cap")
    func appTimes() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        var results = BenchResults(command: "test")
        results.apps = try AppComparison.run([workload], network: .suiteDefault)
        let apps = try #require(results.apps)
        let shipped = try #require(apps.first { $0.preset == "vanilladin-as-shipped" && $0.fixedDefect == nil })
        let fixed = try #require(apps.first { $0.preset == "fixed" })
        let (shippedTime, fixedTime) = (try #require(shipped.timeToImage), try #require(fixed.timeToImage))
        // Hits are the untimed run's: the same as without a network.
        #expect(try AppComparison.run([workload]).map(\.hitRatio) == apps.map(\.hitRatio))
        let lines = RunSummary.lines(results)
        let heading = try #require(lines.firstIndex { $0.hasPrefix("Time to image on slow-4g, the apps as shipped") })
        let expected = RunSummary.duration(shippedTime.overall.p50) + ", " + RunSummary.duration(shippedTime.overall.p95) + " → fixed "
            + RunSummary.duration(fixedTime.overall.p50) + ", " + RunSummary.duration(fixedTime.overall.p95)
        #expect(lines[heading + 1].contains("vanilladin-as-shipped") && lines[heading + 1].hasSuffix(expected), "\(lines[heading + 1])")
        #expect(RunSummary.duration(812.4) == "812 ms" && RunSummary.duration(1_260) == "1.3 s" && RunSummary.duration(98_779) == "99 s")
        #expect(RunSummary.duration(Double(UInt32.max) / 1000) == "over 71 min")
    }

    @Test("a run judged against a baseline says so in its summary, naming what regressed")
    func gateVerdict() throws {
        var baseline = Self.results
        baseline.deriveFigures()
        var current = baseline
        current.apps![0].hitRatio -= 0.01
        current.deriveFigures()
        var thresholds = Gate.Thresholds()
        thresholds.includesTimings = false
        current.gate = .init(baseline: "baselines/datasets.json", try Gate.compare(current, baseline: baseline, thresholds: thresholds))
        let lines = RunSummary.lines(current)
        let verdict = try #require(lines.firstIndex { $0.hasPrefix("Gate against datasets.json:") })
        #expect(lines[verdict].contains("1 regressed"), "\(lines[verdict])")
        #expect(lines[verdict + 1].contains("✗ apps/") && lines[verdict + 1].contains("/hitRatio"), "\(lines[verdict + 1])")
        #expect(lines.count <= 40)
    }

    @Test("report.md opens with the summary, folds its tables and links a table too long to inline")
    func reportFits() throws {
        var results = Self.results
        // A policy table as long as the default run's: hundreds of rows.
        results.simulations = Array(repeating: results.simulations, count: 60).flatMap { $0 }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let folder = try ResultsFolder(claiming: directory, inputs: [])
        _ = try ResultsWriter.write(results, to: folder)
        let report = try String(contentsOfFile: directory + "/report.md", encoding: .utf8)
        #expect(report.count <= 60_000, "\(report.count) characters")
        let summary = try #require(report.range(of: "## Summary"))
        #expect(report.range(of: "## Simulations").map { summary.lowerBound < $0.lowerBound } == true)
        #expect(report.contains("\(results.simulations.count) rows in [simulations.csv](simulations.csv)"))
        #expect(report.contains("<details><summary>"))
        let csv = try String(contentsOfFile: directory + "/simulations.csv", encoding: .utf8)
        #expect(csv.split(separator: "\n").count == results.simulations.count + 1)
    }
}
