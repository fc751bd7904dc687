import CacheEngine
import CacheSimulation
import Foundation
import ImagePipeline
import Workloads

// A recorded app workload: a committed dataset by default, or any trace `record` or `import` wrote.
let datasets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../../datasets").standardized
let path = CommandLine.arguments.dropFirst().first ?? datasets.appendingPathComponent("vanilladin.jsonl.gz").path
let workload: RecordedWorkload
do {
    workload = try RecordedWorkload.load(path: path)
} catch {
    FileHandle.standardError.write(Data("bring-your-own: \(error)\n".utf8))
    exit(2)
}

let keys = CacheKeyStrategy(.normalized, includesProcessing: true)
let limits = CacheLimits(costLimit: 8 << 20)
let pressure = MemoryPressurePolicy.purgeAll
// What the simulator compares with a cache of your own: memory only, the workload's
// own warnings, no invalidations (your cache hears of none), one request at a time.
func simulated(_ policy: EvictionPolicyKind) -> SimulationResult {
    CacheSimulator.run(
        workload.simulationTrace(strategy: keys),
        SimulationConfiguration(limits: limits, policy: policy, pressure: pressure, warnings: .trace, disk: nil, honoursInvalidations: false))
}
func replayed(_ cache: some ReplayableCache, name: String) -> SimulationResult {
    var cache = cache
    return CacheReplay.run(workload, keys: keys, through: &cache, name: name)
}

// (a) Your policy, simulated and in the live MemoryCache (`ReplayableMemoryCache`), beside built-in ones.
let rows: [(cache: String, how: String, result: SimulationResult)] = [
    ("LRU (built in)", "simulated", simulated(.lru)),
    ("SIEVE (built in)", "simulated", simulated(.sieve)),
    ("random (your policy)", "simulated", simulated(RandomEvictionPolicy.kind)),
    ("random (your policy)", "live MemoryCache",
     replayed(ReplayableMemoryCache(.init(limits: limits, policy: RandomEvictionPolicy.kind), pressure: pressure), name: "random")),
    // (b) Your own cache, replayed the same way.
    ("hand-rolled dictionary, 100 images", "your cache", replayed(HandRolledCache(countLimit: 100), name: "hand-rolled")),
]

print("\(URL(fileURLWithPath: path).lastPathComponent): \(workload.requests.count) requests, keys \(keys), 8 MiB of decoded thumbnails,")
print("the workload's memory warnings purging all, no disk tier\n")
let header = ["cache", "run", "hit ratio", "byte hit ratio", "wrong images", "warnings"]
let table = rows.map {
    [$0.cache, $0.how, String(format: "%.4f", $0.result.hitRatio), String(format: "%.4f", $0.result.byteHitRatio),
     "\($0.result.wrongImages)", "\($0.result.warnings.count)"]
}
let widths = header.indices.map { column in ([header] + table).map { $0[column].count }.max()! }
for row in [header] + table {
    print(row.indices.map { $0 < 2 ? row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0)
        : String(repeating: " ", count: widths[$0] - row[$0].count) + row[$0] }.joined(separator: "  "))
}

// The live cache must take the simulator's decisions, for your policy as for the built-in ones.
let live = rows[3].result, simulation = rows[2].result
guard live.hits == simulation.hits, live.byteHits == simulation.byteHits, live.wrongImages == simulation.wrongImages else {
    print("\nFAIL: the live MemoryCache with your policy hit \(Int(live.hits)) times, the simulator \(Int(simulation.hits))")
    exit(1)
}
print("\nyour policy: the live MemoryCache took the simulator's decisions on all \(workload.requests.count) requests")
