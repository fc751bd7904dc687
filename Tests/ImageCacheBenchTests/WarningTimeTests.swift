import Foundation
import Testing
import Bench
import CacheSimulation

@Suite("memwarn on a network: what each reaction costs in time to image")
struct WarningTimeTests {
    @Test("each reaction's time beside the same run without warnings; what a warning drops is fetched again, and that takes time")
    func reactionsInTime() throws {
        let workload = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("vanilladin-small.jsonl").path)
        var matrix = SimulationMatrix()
        matrix.diskSizes = [nil]
        matrix.network = try NetworkProfile(parsing: "lte")
        let rows = WarningComparison.run(
            [workload], sources: [.every(seconds: 10)], reactions: [WarningReaction(.purgeAll), WarningReaction(.trimToFraction(0.5))],
            configuration: matrix)
        try #require(rows.count == 2)
        let baseline = try #require(rows[0].baselineTimeToImage)
        #expect(rows.allSatisfy { $0.baselineTimeToImage == baseline && $0.timeToImage?.network == "lte" })
        let purge = try #require(rows.first { $0.reaction == "purge-all" })
        let purged = try #require(purge.timeToImage)
        try #require(purge.refetches > 0, "the schedule must drop something that is asked for again")
        #expect(purged.overall.mean > baseline.overall.mean)
        #expect(purged.networkBytes > baseline.networkBytes)
        // A reaction that dropped nothing asked for again changes no decision, so no time.
        #expect(rows.contains { $0.reaction == "trim-to-50%" && $0.refetches == 0 && $0.hitRatioLoss == 0 })
        for row in rows where row.refetches == 0 && row.hitRatioLoss == 0 {
            #expect(row.timeToImage == baseline, "\(row.reaction)")
        }
        let table = ReportTables.warnings(rows).render()
        #expect(table.contains("image p95 ms on lte") && table.contains("mean added ms"))

        // Without a network, no clock and no time columns.
        matrix.network = nil
        let untimed = WarningComparison.run([workload], sources: [.every(seconds: 10)], reactions: [WarningReaction(.purgeAll)], configuration: matrix)
        #expect(untimed.allSatisfy { $0.timeToImage == nil && $0.baselineTimeToImage == nil })
        #expect(!ReportTables.warnings(untimed).render().contains("image p95"))
    }
}
