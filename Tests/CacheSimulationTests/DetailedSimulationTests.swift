import Testing
@testable import ImagePipeline
import CacheSimulation

@Suite("Simulator on recorded-app traces: ground truth, outcomes, resets, warning schedules")
struct DetailedSimulationTests {
    /// Two keys (0, 1) and two disk keys, added up front.
    static func emptyTrace(keys: Int = 2) -> SimulationTrace {
        var trace = SimulationTrace()
        for key in 0..<keys {
            _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint)
            _ = trace.addDiskKey()
        }
        return trace
    }

    static func request(
        _ trace: inout SimulationTrace, key: Slot, content: Int32, url: Int32, outcome: SimulationTrace.MissOutcome = .store,
        size: Int = 100, time: UInt64 = 0
    ) {
        trace.append(key: key, cost: 1, size: size, time: time,
                     detail: .init(diskKey: key, content: content, url: url, outcome: outcome))
    }

    @Test("a hit on another URL's picture is a wrong image; a changed picture at the same URL is stale unless invalidated")
    func wrongAndStale() {
        var trace = Self.emptyTrace()
        Self.request(&trace, key: 0, content: 0, url: 0)  // origin
        Self.request(&trace, key: 0, content: 1, url: 1)  // another URL, same key: wrong picture
        trace.appendInvalidation(memory: [0], disk: [0])     // URL 0's picture changes
        Self.request(&trace, key: 0, content: 2, url: 0)
        Self.request(&trace, key: 0, content: 2, url: 0)

        let limits = unitLimits(10)
        let honoured = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: .lru, disk: .init(byteLimit: 1_000)))
        #expect(honoured.wrongImages == 1)
        #expect(honoured.staleImages == 0)
        #expect(honoured.hits == 2)  // requests 2 and 4
        #expect(honoured.originFetches == 2)

        let ignored = CacheSimulator.run(trace, SimulationConfiguration(
            limits: limits, policy: .lru, disk: .init(byteLimit: 1_000), honoursInvalidations: false))
        #expect(ignored.wrongImages == 1)
        #expect(ignored.staleImages == 2)  // requests 3 and 4 see URL 0's old picture
        #expect(ignored.hits == 3)
    }

    @Test("with requests in flight, a thumbnail lands a third of a window of misses later: a repeat before then joins it, another size shares the download")
    func inFlightWindow() {
        func trace(otherSize outcome: SimulationTrace.MissOutcome) -> SimulationTrace {
            var trace = Self.emptyTrace(keys: 4)
            for key: Slot in [0, 1, 0, 2] { Self.request(&trace, key: key, content: Int32(key), url: Int32(key)) }
            // Another display size of URL 2 (its own memory key, the same original on disk).
            trace.append(key: 3, cost: 1, size: 100, time: 0, detail: .init(diskKey: 2, content: 2, url: 2, outcome: outcome))
            Self.request(&trace, key: 0, content: 0, url: 0)
            return trace
        }
        func run(_ inFlight: Int, otherSize outcome: SimulationTrace.MissOutcome = .store) -> CacheSimulator.Answered {
            CacheSimulator.answers(trace(otherSize: outcome), SimulationConfiguration(
                limits: unitLimits(2), policy: .lru, disk: .init(byteLimit: 1_000), inFlight: inFlight))
        }
        // One at a time: the repeat is a memory hit, the other size reads URL 2's original from
        // disk, and the last request finds 0 evicted but on disk.
        let sequential = run(1)
        #expect(sequential.answers == [.origin, .origin, .memory, .origin, .disk, .disk])
        #expect(run(0).answers == sequential.answers)
        #expect(sequential.sharedDownloads == 0)
        // Four and eight in flight: the repeat joins the first flight; the other size asks while
        // URL 2 downloads and shares it; 0 lands once more than one (two) places were taken after
        // it, so the last request finds it in memory, though the window of eight never filled.
        for inFlight in [4, 8] {
            let windowed = run(inFlight)
            #expect(windowed.answers == [.origin, .origin, .joined, .origin, .origin, .memory], "\(inFlight) in flight")
            #expect(windowed.sharedDownloads == 1)
            #expect(windowed.result.hits == 2 && windowed.result.diskHits == 0)
            #expect(windowed.result.statistics.insertions == 4)  // the join stored nothing of its own
            // The other size cancelled by the app, or asked for offline: sharing the download, it
            // never starts one of its own, so neither reaches it.
            for outcome: SimulationTrace.MissOutcome in [.cancelled, .offline] {
                #expect(run(inFlight, otherSize: outcome).answers == windowed.answers, "\(inFlight) in flight, \(outcome)")
            }
        }
        // Two in flight: the window is full when the repeat comes, so 0 has landed; the other size
        // still shares URL 2's download, and 0 is evicted by the end, as one at a time.
        #expect(run(2).answers == [.origin, .origin, .memory, .origin, .origin, .disk])
    }

    @Test("cancelled and offline misses store nothing; relaunch empties memory, a new device both tiers")
    func outcomesAndResets() {
        var trace = Self.emptyTrace()
        Self.request(&trace, key: 0, content: 0, url: 0, outcome: .cancelled, size: 10)
        Self.request(&trace, key: 0, content: 0, url: 0, size: 20)
        trace.appendReset(newDevice: false)
        Self.request(&trace, key: 0, content: 0, url: 0, size: 30)  // disk hit
        Self.request(&trace, key: 0, content: 0, url: 0, size: 40)  // memory hit (the disk hit refilled memory)
        trace.appendReset(newDevice: true)
        Self.request(&trace, key: 0, content: 0, url: 0, outcome: .offline, size: 50)
        Self.request(&trace, key: 0, content: 0, url: 0, size: 60)

        let result = CacheSimulator.run(trace, SimulationConfiguration(limits: unitLimits(10), policy: .lru, disk: .init(byteLimit: 1_000)))
        #expect(result.cancelledTransfers == 1)
        #expect(result.offlineMisses == 1)
        #expect(result.diskHits == 1)
        #expect(result.hits == 1)
        #expect(result.originFetches == 3)  // the cancelled one, the first store, the one after the new device
        #expect(result.bytesDownloaded == 20 + 60)
        #expect(result.unservedBytes == 10 + 50)
    }

    @Test("scheduled warnings fire by trace time; a cost threshold fires when crossed; refetches are counted")
    func warningSchedules() {
        // Keys 0…9 requested in rounds one second apart per request, 5 rounds: 50 s of trace.
        var trace = SimulationTrace()
        for key in 0..<10 { _ = trace.addKey(fingerprint: (key + 1).cacheFingerprint) }
        for index in 0..<50 {
            trace.append(key: Slot(index % 10), cost: 1, size: 7, time: UInt64(index) * 1_000_000_000)
        }
        let limits = unitLimits(100)
        let never = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: .lru, warnings: .none))
        #expect(never.hits == 40)

        let every = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: .lru, warnings: .every(seconds: 10)))
        // Warnings at 10, 20, 30 and 40 s, each just before a round starts: every round misses all ten.
        #expect(every.warnings.count == 4)
        #expect(every.hits == 0)
        #expect(every.warnings.refetches == 40)
        #expect(every.warnings.refetchedBytes == 40 * 7)
        // Back to 90% of the ten entries (nine) eight seconds after each warning.
        #expect(every.warnings.recovered == 4)
        #expect(every.warnings.recoverySeconds == 32)

        let above = CacheSimulator.run(trace, SimulationConfiguration(limits: limits, policy: .lru, warnings: .costAbove(5)))
        // Each warning comes when the sixth entry goes in, and purges those six.
        #expect(above.warnings.count >= 5)
        #expect(above.statistics.trimmed == above.warnings.count * 6)
    }
}
