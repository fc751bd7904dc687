import Foundation
import Bench
import Testing

@Suite("10,000 thumbnails leak nothing")
struct LeakCheckTests {
    /// Runs in its own process so the other tests running in parallel cannot
    /// move its resident-memory figures.
    @Test func residentMemoryAndLibvipsObjectsStayFlat() async throws {
        let output = try await BenchProcess.run(["leak-check", "--iterations", "10000", "--json"])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")

        let result = try JSONDecoder().decode(LeakCheckReport.self, from: Data(output.stdout.utf8))
        #expect(result.iterations == 10_000)
        // Inputs rotate through four good images and two broken ones (truncated,
        // HTML): iterations whose index mod 6 is 4 or 5 must fail, 3,332 of 10,000.
        #expect(result.failuresSeen == (0..<10_000).count { $0 % 6 >= 4 })
        #expect(result.liveVipsObjectsAfter == result.liveVipsObjectsBefore)
        #expect(result.residentGrowthBytes < 8 << 20)
        #expect(result.residentSamples.count == 20)
    }
}
