import Testing
@testable import ImagePipeline

@Suite("Memory pressure: sources and the monitor")
struct MemoryPressureTests {
    func cache(_ costLimit: Int) -> MemoryCache<String, String> {
        MemoryCache(.init(limits: CacheLimits(costLimit: costLimit, countLimit: .max, maxEntryFraction: 0.5)))
    }

    @Test("memory warnings reach the cache through a monitor, per level")
    func pressureMonitor() async {
        let cache = cache(1_000)
        for index in 0..<10 { cache.insert("\(index)", for: "\(index)", cost: 100) }
        let source = ManualPressureSource()
        let monitor = MemoryPressureMonitor(
            source: source, policy: MemoryPressurePolicy(warning: .trimToFraction(0.5), critical: .purgeAll),
            responders: [cache])
        let running = Task { await monitor.run() }
        await waitUntil { source.hasSubscribers }
        source.send(.warning)
        await waitUntil { cache.totalCost <= 500 }
        #expect(cache.totalCost == 500)
        source.send(.critical)
        await waitUntil { cache.count == 0 }
        source.finish()
        #expect(await running.value == 2)
    }

    @Test("a scheduled source fires repeatedly until cancelled")
    func scheduledSource() async {
        var received = 0
        for await level in ScheduledPressureSource(every: .milliseconds(10), level: .critical).events() {
            #expect(level == .critical)
            received += 1
            if received == 3 { break }
        }
        #expect(received == 3)
    }

    @Test("PSI is either armed on a real file or cleanly unavailable")
    func pressureStall() {
        do {
            let source = try PressureStallSource()
            #expect(source.path.hasSuffix("memory.pressure") || source.path == "/proc/pressure/memory")
        } catch {
            #expect(error.description.contains("unavailable"))
        }
        #expect(throws: PressureStallSource.Failure.self) {
            try PressureStallSource(candidates: ["/nonexistent/memory.pressure"])
        }
    }
}
