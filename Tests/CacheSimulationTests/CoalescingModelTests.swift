import Testing
@testable import ImagePipeline
import CacheSimulation

@Suite("Simulator: how an app's loads share downloads, and the peaks and repeats it counts")
struct CoalescingModelTests {
    typealias Coalescing = SimulationConfiguration.FetchCoalescing

    static func run(_ trace: SimulationTrace, _ coalescing: Coalescing, inFlight: Int = 0, limits: CacheLimits = unitLimits(10),
                    disk: SimulationConfiguration.DiskTier? = nil) -> CacheSimulator.Answered {
        CacheSimulator.answers(trace, SimulationConfiguration(
            limits: limits, policy: .lru, disk: disk, honoursInvalidations: true, inFlight: inFlight, coalescing: coalescing))
    }

    @Test("My Market's coalescer: a second caller in flight is dropped, and so is every load after the image left memory")
    func myMarketDropsCallers() {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        load(&trace, 0, 0, 0)               // 0: downloads, leaves a waiting entry
        load(&trace, 0, 0, 0)               // 1: in flight (window 2): dropped
        load(&trace, 1, 1, 1)               // 2: another URL
        trace.appendMemoryWarning(.warning)              // purge-all: URL 0 leaves memory
        load(&trace, 0, 0, 0)               // 3: the entry is still there: dropped
        load(&trace, 1, 1, 1, .cancelled)   // 4: dropped too (the cancel that would clear it never comes for a dropped load)
        trace.appendReset(newDevice: false)         // a relaunch: a new process, an empty table
        load(&trace, 0, 0, 0)               // 5: downloads again
        let shipped = Self.run(trace, .myMarketAsShipped, inFlight: 2)
        #expect(shipped.answers == [.origin, .unanswered, .origin, .unanswered, .unanswered, .origin])
        #expect(shipped.result.unansweredRequests == 3)
        #expect(shipped.result.duplicateDownloads == 1)  // request 5: the picture came down at request 0
        #expect(shipped.result.bytesDownloaded == 300)

        let fixed = Self.run(trace, .perWaiter, inFlight: 2)
        #expect(fixed.answers == [.origin, .joined, .origin, .origin, .cancelled, .origin])
        #expect(fixed.result.unansweredRequests == 0)
        #expect(fixed.result.duplicateDownloads == 2)  // requests 3 and 5, after the purge and the relaunch
    }

    @Test("My Market's coalescer: cancel(url:) forgets the entry, an error (offline) keeps it for good")
    func myMarketCancelAndError() {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        load(&trace, 0, 0, 0, .cancelled)  // cancelled before the origin answered: cancel(url:) clears the entry
        load(&trace, 0, 0, 0)              // downloads
        load(&trace, 1, 1, 1, .offline)    // the load fails; its entry stays
        load(&trace, 1, 1, 1)              // online again, but dropped
        load(&trace, 1, 1, 1)
        let shipped = Self.run(trace, .myMarketAsShipped)
        #expect(shipped.answers == [.cancelled, .origin, .offline, .unanswered, .unanswered])
        let fixed = Self.run(trace, .perWaiter)
        #expect(fixed.answers == [.cancelled, .origin, .offline, .origin, .memory])
    }

    @Test("with no coalescer a URL in flight is downloaded again; with one the repeat joins the flight")
    func noCoalescerDownloadsTwice() {
        var trace = DetailedSimulationTests.emptyTrace(keys: 2)
        for key: Slot in [0, 0, 1, 0] { load(&trace, key, Int32(key), Int32(key)) }
        // Eight in flight: the first flight has not landed when its last repeat comes.
        let none = Self.run(trace, .none, inFlight: 8)
        #expect(none.answers == [.origin, .origin, .origin, .origin])
        #expect(none.result.duplicateDownloads == 2)
        #expect(none.sharedDownloads == 0)
        let shared = Self.run(trace, .perWaiter, inFlight: 8)
        #expect(shared.answers == [.origin, .joined, .origin, .joined])
        #expect(shared.result.duplicateDownloads == 0)
        // One at a time, neither mode changes anything: the repeats are memory hits.
        #expect(Self.run(trace, .none).answers == Self.run(trace, .perWaiter).answers)
    }

    @Test("peaks of memory and disk, with an original's bytes on disk when an app re-encodes it")
    func peaks() {
        var trace = DetailedSimulationTests.emptyTrace(keys: 3)
        for key: Slot in 0..<3 {
            trace.append(key: key, cost: 10 * (Int(key) + 1), size: 100, time: 0,
                         detail: .init(diskKey: key, originalDiskBytes: 40, content: Int32(key), url: Int32(key)))
        }
        // Memory holds 40 of cost: 10 + 20 = 30; the entry of 30 evicts both.
        let result = Self.run(trace, .perWaiter, limits: CacheLimits(costLimit: 40, maxEntryFraction: 1), disk: .init(byteLimit: 1_000)).result
        #expect(result.peakMemoryCost == 30)
        #expect(result.peakDiskBytes == 120)  // three originals of 40 bytes on disk, not their 100 downloaded
        #expect(result.bytesDownloaded == 300)
    }
}

/// One request for key (and disk key) `key` showing picture `content` of URL `source`.
private func load(_ trace: inout SimulationTrace, _ key: Slot, _ content: Int32, _ source: Int32,
                  _ outcome: SimulationTrace.MissOutcome = .store) {
    DetailedSimulationTests.request(&trace, key: key, content: content, url: source, outcome: outcome)
}
