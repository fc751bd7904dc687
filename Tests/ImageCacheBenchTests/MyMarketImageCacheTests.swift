import Foundation
import Synchronization
import Testing
import Bench
import CacheSimulation
import ImagePipeline
import PipelineTesting

@Suite("My Market's ImageCache as written: each defect live, and the simulator's model of it request by request")
struct MyMarketImageCacheTests {
    /// Completions a test saw, in order: the image's byte count, or nil.
    final class Calls: Sendable {
        private let values = Mutex<[Int?]>([])
        func record(_ value: Int?) { values.withLock { $0.append(value) } }
        var all: [Int?] { values.withLock { $0 } }
        /// Waits up to 30 s for `count` completions; fewer fail the test.
        func wait(for count: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
            for _ in 0..<3_000 {
                if values.withLock({ $0.count }) >= count { break }
                try? await Task.sleep(for: .milliseconds(10))
            }
            let seen = values.withLock { $0.count }
            if seen < count { Issue.record("\(seen) of \(count) completions after 30 s", sourceLocation: sourceLocation) }
        }
    }

    let bytes = Data(repeating: 7, count: 40)

    func cache(_ fetcher: ScriptedFetcher) -> MyMarketImageCache<Int> { MyMarketImageCache(fetcher: fetcher) { $0.count } }

    @Test("a second caller while the download runs is dropped; after the image leaves memory nobody is answered again")
    func droppedCallers() async {
        let fetcher = ScriptedFetcher(fallback: .data(bytes))
        let cache = cache(fetcher)
        let first = Calls(), second = Calls(), later = Calls()
        fetcher.closeGate()
        #expect(cache.load(url: "a") { first.record($0) } == .start)
        #expect(cache.load(url: "a") { second.record($0) } == .drop)
        await fetcher.waitUntilHeld(1)
        fetcher.openGate()
        await first.wait(for: 1)
        #expect(first.all == [40])
        #expect(cache.load(url: "a") { later.record($0) } == nil)  // a memory hit, answered at once
        cache.systemEmptiesCache()
        #expect(cache.load(url: "a") { later.record($0) } == .drop)  // the entry outlived the image
        #expect(later.all == [40])
        #expect(second.all.isEmpty)
        #expect(fetcher.calls(to: "a") == 1)
    }

    @Test("after an error only the caller that started hears back, and the URL is never fetched again")
    func errorSticks() async {
        let fetcher = ScriptedFetcher(["b": .failure(.status(500))])
        let cache = cache(fetcher)
        let calls = Calls()
        #expect(cache.load(url: "b") { calls.record($0) } == .start)
        await calls.wait(for: 1)
        fetcher.set("b", .data(bytes))
        #expect(cache.load(url: "b") { calls.record($0) } == .drop)
        #expect(calls.all == [nil])
        #expect(fetcher.calls(to: "b") == 1)
    }

    @Test("cancel(url:) stops the download for every waiter and forgets the entry")
    func cancelStopsEveryone() async {
        let fetcher = ScriptedFetcher(fallback: .data(bytes))
        let cache = cache(fetcher)
        let calls = Calls()
        fetcher.closeGate()
        cache.load(url: "c") { calls.record($0) }
        await fetcher.waitUntilHeld(1)
        cache.cancel(url: "c")
        await calls.wait(for: 1)
        #expect(calls.all == [nil])
        fetcher.openGate()
        #expect(cache.load(url: "c") { calls.record($0) } == .start)  // fetched again
        await calls.wait(for: 2)
        #expect(calls.all == [nil, 40])
        #expect(fetcher.calls(to: "c") == 2)
    }

    @Test("the live port answers every request where the simulator's model does: My Market's first sessions, and a crafted trace with a warning")
    func liveMatchesSimulator() async throws {
        let full = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("mymarket.jsonl.gz").path)
        let craftedTrace = try CraftedTrace.write()
        defer { CraftedTrace.remove(craftedTrace) }
        let crafted = try RecordedWorkload.load(path: craftedTrace)
        for workload in [full.prefix(sessions: 2), crafted] {
            let live = await MyMarketReplay.answers(workload, fetcher: ScriptedFetcher(fallback: .data(bytes))).answers
            let myMarket = try PresetLibrary.named("mymarket-as-shipped")
            var configuration = myMarket.configuration
            configuration.inFlight = 0
            let simulated = CacheSimulator.answers(myMarket.trace(of: workload), configuration).answers
            #expect(live.count == workload.requests.count)
            let differing = zip(live, simulated).enumerated().filter { $0.element.0 != $0.element.1 }
            #expect(differing.isEmpty, "first differences: \(differing.prefix(5).map { "request \($0.offset): live \($0.element.0), simulated \($0.element.1)" })")
            #expect(live.contains(.memory) && live.contains(.cancelled))
        }
        // The crafted trace: a warning empties the cache, and the next load of its URL is never answered.
        #expect(await MyMarketReplay.answers(crafted, fetcher: ScriptedFetcher(fallback: .data(bytes))).answers
            == [.origin, .origin, .memory, .memory, .origin, .unanswered, .cancelled, .origin])
    }

    @Test("with 10 downloads at once, the port answers every request as the simulator's model does in the port's order")
    func liveMatchesSimulatorInFlight() async throws {
        let full = try RecordedWorkload.load(path: CraftedTrace.datasets.appendingPathComponent("mymarket.jsonl.gz").path)
        let workload = full.prefix(sessions: 3)
        let myMarket = try PresetLibrary.named("mymarket-as-shipped")
        let live = await MyMarketReplay.answers(workload, fetcher: ScriptedFetcher(fallback: .data(bytes)), inFlight: myMarket.loadsInFlight)
        var configuration = myMarket.configuration
        configuration.inFlight = 0
        let simulated = CacheSimulator.answers(myMarket.trace(of: workload), configuration, observed: live.order).answers
        let differing = zip(live.answers, simulated).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(differing.isEmpty, "first differences: \(differing.prefix(5).map { "request \($0.offset): live \($0.element.0), simulated \($0.element.1)" })")
        #expect(live.answers.contains(.unanswered) && live.answers.contains(.cancelled) && live.answers.contains(.memory))
    }
}
