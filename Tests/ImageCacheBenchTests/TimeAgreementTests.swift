import Foundation
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
        // Ranks: live 1,3,4,2; simulated 1,3,4,2. One memory hit is no tie: the ceiling is 1.
        #expect(agreement.spearman == 1 && agreement.spearmanCeiling == 1)
    }

    @Test("ρ's ceiling: memory hits timed apart live and tied at no time simulated bound ρ, whatever the model's other times")
    func ceiling() {
        // Three memory hits live took 30, 10 and 20 µs for; two downloads the model times exactly.
        let live: [UInt32] = [30, 10, 20, 100_000, 200_000]
        let answers: [CacheSimulator.Answer] = [.memory, .memory, .memory, .origin, .origin]
        let exact = TimeAgreement(
            network: "test", method: "paced", live: live, liveAnswers: answers, simulated: [0, 0, 0, 100_000, 200_000],
            simulatedAnswers: answers)
        // Live's ranks 3,1,2,4,5 against 2,2,2,4,5: Σ(dx·dy) = 8, Σdx² = 10, Σdy² = 8: ρ ≤ 0.894.
        let bound = 8 / (10 * 8.0).squareRoot()
        #expect(abs(exact.spearmanCeiling - bound) < 1e-12 && exact.spearman == exact.spearmanCeiling)
        // A model that gets the downloads' order wrong falls below the ceiling, which is live's alone.
        let swapped = TimeAgreement(
            network: "test", method: "paced", live: live, liveAnswers: answers, simulated: [0, 0, 0, 200_000, 100_000],
            simulatedAnswers: answers)
        #expect(swapped.spearmanCeiling == exact.spearmanCeiling && swapped.spearman < exact.spearman - 0.1)
    }
}

@Suite("Device profiles (--device-costs)")
struct DeviceProfileTests {
    @Test("a profile written is read back; one that is not a profile, or holds a figure no device has, is refused naming the file and the field")
    func readAndRefuse() throws {
        let path = BenchProcess.temporaryFile("costs").path + ".json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        var costs = DeviceCosts.thisMachine
        costs.decodeFixedNanoseconds = 123_456
        let profile = DeviceProfile(costs: costs, source: "test", decodes: 10, medianError: 0.2)
        try profile.write(to: path)
        #expect(try DeviceProfile.read(path) == profile)
        for (text, message) in [
            ("{\"source\": \"x\"}", "costs is missing"),
            ("{\"source\": \"x\", \"costs\": {\"decodeWidth\": 2}}", "costs.decodeFixedNanoseconds is missing (a profile from an older calibrate: run calibrate again)"),
            ("[1, 2]", "is not a device profile's JSON"),
            (try String(decoding: JSONEncoder().encode(DeviceProfile(costs: DeviceCosts(decodeFixedNanoseconds: -1), source: "x")), as: UTF8.self),
             "costs.decodeFixedNanoseconds must be from 0 to 10¹² ns, not -1.0"),
            (try String(decoding: JSONEncoder().encode(DeviceProfile(costs: DeviceCosts(decodeWidth: 0), source: "x")), as: UTF8.self),
             "costs.decodeWidth must be from 1 to 256"),
        ] {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            #expect { try DeviceProfile.read(path) } throws: { ($0 as? UsageError)?.description.contains(message) == true && "\($0)".contains(path) }
        }
        #expect(throws: UsageError.self) { try DeviceProfile.read(path + ".absent") }
    }
}
