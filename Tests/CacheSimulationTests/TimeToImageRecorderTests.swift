import Testing
@testable import CacheSimulation

@Suite("The clock's recorded times and their percentiles")
struct TimeToImageRecorderTests {
    /// Deterministic pseudo-random times, spread over both 16-bit digits.
    static func times(_ count: Int, seed: UInt64) -> [UInt32] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt32(truncatingIfNeeded: state >> 33) % 5_000_000
        }
    }

    @Test("a run of millions sorts by radix to what a comparison sort gives; a few sort by comparison")
    func radix() {
        for count in [3, 70_000, 200_001] {
            let times = Self.times(count, seed: UInt64(count))
            // Compared outside the expectation: a failure would print millions of figures.
            let same = TimeToImageRecorder.sorted(times) == times.sorted()
            #expect(same, "\(count) times")
        }
    }

    @Test("sorted runs merge to the sort of both, empty runs included")
    func merge() {
        let a = Self.times(1_001, seed: 1).sorted(), b = Self.times(70_000, seed: 2).sorted()
        let both = (a + b).sorted()
        let ab = TimeToImageRecorder.merged(a, b) == both, ba = TimeToImageRecorder.merged(b, a) == both
        #expect(ab && ba)
        #expect(TimeToImageRecorder.merged([], a) == a && TimeToImageRecorder.merged(a, []) == a)
    }

    @Test("the overall percentiles are those of every tier's times together")
    func overall() {
        var recorder = TimeToImageRecorder()
        let memory = Self.times(80_000, seed: 3).map { $0 % 1_000 }, origin = Self.times(90_000, seed: 4)
        for (index, time) in memory.enumerated() { recorder.record(.memory, UInt64(time) * 1_000, request: index) }
        for (index, time) in origin.enumerated() { recorder.record(.origin, UInt64(time) * 1_000, request: index) }
        let summary = recorder.summary(network: .suiteDefault, networkBytes: 0, backToBack: false)
        #expect(summary.overall == TimeToImage.Percentiles(sorted: (memory + origin).sorted()))
        #expect(summary.byTier["origin"] == TimeToImage.Percentiles(sorted: origin.sorted()))
        #expect(summary.byTier["joined"] == nil)
    }
}
