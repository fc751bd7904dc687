import CacheSimulation
import ImagePipeline
import Testing
@testable import Bench

/// The libraries' defaults against the best settings at their memory, checked through the path
/// `simulate --pipeline` takes (`PipelineSimulation`), not the comparison's own.
@Suite("The libraries' defaults against the best settings at the memory they held")
struct LibraryComparisonTests {
    static func simulate(_ pipeline: AppPreset, _ workload: RecordedWorkload, network: NetworkProfile? = nil) -> SimulationResult {
        var simulation = PipelineSimulation(pipeline: pipeline)
        simulation.device = .appsDefault
        simulation.network = network
        simulation.bounds = false
        return simulation.run([.recorded(workload)])[0].result
    }

    @Test("every library on every trace; the defaults as simulate --pipeline runs them; tuned is the fixed pipeline at their peak memory and disk under the first policy that hits most")
    func againstPipelineSimulation() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        let network = try #require(NetworkProfile.presets.first)
        let rows = try LibraryComparison.run([workload], network: network)
        let libraries = try PresetLibrary.libraries()
        #expect(rows.map(\.library) == libraries.map(\.name))
        #expect(libraries.count == 5)
        var fixed = try PresetLibrary.fixed()
        for (row, library) in zip(rows, libraries) {
            let defaults = Self.simulate(library, workload)
            #expect(row.trace == workload.name)
            #expect(row.defaults.hitRatio == defaults.combinedHitRatio, "\(library.name)")
            #expect(row.defaults.originBytes == defaults.bytesDownloaded, "\(library.name)")
            #expect(row.defaults.warnings == defaults.warnings.count, "\(library.name)")
            #expect(row.memoryBytes == max(defaults.peakMemoryCost, Recommendation.smallestSize), "\(library.name)")
            #expect(row.defaults.timeToImage == Self.simulate(library, workload, network: network).timeToImage, "\(library.name)")

            fixed.memoryDeviceShare = nil
            fixed.memoryLimits.costLimit = row.memoryBytes
            fixed.disk = library.disk
            let byPolicy = EvictionPolicyKind.deployable.map { policy in
                fixed.policy = policy
                return (policy.description, Self.simulate(fixed, workload).combinedHitRatio)
            }
            let best = try #require(byPolicy.map(\.1).max())
            guard best > defaults.combinedHitRatio else {
                // Nothing tuned hits more: the defaults are the best settings.
                #expect(row.tunedPolicy == nil && row.tuned == row.defaults && row.tuningGain == 0, "\(library.name): \(byPolicy)")
                continue
            }
            #expect(row.tunedPolicy == byPolicy.first { $0.1 == best }?.0, "\(library.name): \(byPolicy)")
            #expect(row.tuned.hitRatio == best, "\(library.name)")
            let tunedPolicy = try #require(row.tunedPolicy)
            fixed.policy = try #require(EvictionPolicyKind(name: tunedPolicy))
            #expect(row.tuned.timeToImage == Self.simulate(fixed, workload, network: network).timeToImage, "\(library.name)")
            #expect(row.tuningGain == row.tuned.hitRatio - row.defaults.hitRatio)
        }
    }

    @Test("the summary names, per trace, the library with the fewest points left to the best settings")
    func summaryLine() {
        func row(_ trace: String, _ library: String, _ defaults: Double, _ tuned: Double?) -> LibraryComparisonRow {
            var figures = LibraryComparisonRow.Figures(SimulationResult(policy: "lru"))
            figures.hitRatio = defaults
            var better = figures
            better.hitRatio = tuned ?? defaults
            return LibraryComparisonRow(
                trace: trace, library: library, memoryBytes: 1 << 20, defaults: figures, tuned: better, tunedPolicy: tuned == nil ? nil : "sieve")
        }
        let lines = RunSummary.libraryLines([
            row("a.jsonl", "nuke-default", 0.40, 0.50), row("a.jsonl", "kingfisher-default", 0.30, 0.35),
            row("b.jsonl", "nuke-default", 0.60, 0.61), row("b.jsonl", "kingfisher-default", 0.20, 0.40),
            row("c.jsonl", "nuke-default", 0.50, 0.52), row("c.jsonl", "kingfisher-default", 0.55, nil),
        ])
        #expect(lines.count == 3)
        #expect(lines[0].contains("kingfisher-default 30.0%; fixed, sieve: +5.0 pt"), "\(lines)")
        #expect(lines[1].contains("nuke-default 60.0%; fixed, sieve: +1.0 pt"), "\(lines)")
        #expect(lines[2].contains("kingfisher-default 55.0%; nothing tuned does better"), "\(lines)")
    }
}
