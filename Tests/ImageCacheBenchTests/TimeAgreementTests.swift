@testable import Bench
import CacheSimulation
import Testing

@Suite("Live against simulated time to image")
struct TimeAgreementTests {
    @Test("percentiles per tier on each side, MAPE over the requests live waited for, ρ over every request timed on both")
    func agreement() {
        let untimed = TimeToImage.untimed
        // Microseconds: a memory hit each side, two origin answers, a join live that the model answered from disk, one cancelled.
        let live: [UInt32] = [40, 100_000, 200_000, 50_000, untimed]
        let simulated: [UInt32] = [0, 110_000, 150_000, 60_000, untimed]
        let agreement = TimeAgreement(
            network: "test", method: "paced", live: live, liveAnswers: [.memory, .origin, .origin, .joined, .cancelled],
            simulated: simulated, simulatedAnswers: [.memory, .origin, .origin, .disk, .cancelled])
        #expect(agreement.rows.map(\.tier) == ["overall", "memory", "joined", "disk", "origin"])
        #expect(agreement.rows[0].live.count == 4 && agreement.rows[0].simulated.count == 4)
        #expect(agreement.rows[2].live.count == 1 && agreement.rows[2].simulated.count == 0)
        #expect(agreement.rows[3].live.count == 0 && agreement.rows[3].simulated.p50 == 60)
        #expect(agreement.rows[4].live.p50 == 100 && agreement.rows[4].simulated.p90 == 150)
        #expect(agreement.compared == 4 && agreement.mapeRequests == 3)
        let mape = (0.1 + 0.25 + 0.2) / 3
        #expect(abs(agreement.mape - mape) < 1e-12)
        // Ranks: live 1,3,4,2; simulated 1,3,4,2.
        #expect(agreement.spearman == 1)
    }
}
