import Bench
import Testing

@Suite("Hostile-image corpus through the pipeline")
struct HostileCorpusTests {
    @Test("every generated hostile or unusual image is a fitting thumbnail or a typed error")
    func corpus() async throws {
        let cases = try HostileCorpus.make()
        #expect(cases.count >= 40)
        let results = try await HostileRun.run(cases)
        // Outcomes only: the time bound is the `hostile` command's, not a unit test's (machines are noisy).
        for result in results {
            #expect(result.expected, "\(result.name): expected \(result.expectation.rawValue), got \(result.outcome)")
        }
        let byName = Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.outcome) })
        #expect(byName["EXIF-rotated JPEG (orientation 6)"] == "thumbnail 267×400")  // 600×400 turned upright, fitted to 400
        #expect(byName["20000×10 strip JPEG"] == "thumbnail 400×1")
        #expect(byName["PNG bomb: 8000×8000 of zeros in a small file"] == "thumbnail 400×400")
        #expect(byName["HTML error page"]?.contains("HTML") == true)
    }
}
