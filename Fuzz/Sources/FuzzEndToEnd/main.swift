import CacheSimulation
import Foundation
import ImagePipeline
import Workloads

/// The end-to-end property test as a libFuzzer target: any bytes, read as a
/// trace (first byte even) or imported as a HAR file (odd), go through what
/// simulate, sweep, memwarn, stats and export run, with and without the disk
/// tier, and the offline bounds. The first byte also picks the key strategy,
/// warning source and reaction, the second the policy (one per input keeps
/// inputs fast; the corpus covers them all). Each input must end in figures or
/// in a typed error naming the file; a trap, or an error that does not name
/// the file, is a finding.
enum Scratch {
    static let directory = FileManager.default.temporaryDirectory.path
    static let input = "\(directory)/fuzz-e2e-\(getpid()).in"
    static let trace = "\(directory)/fuzz-e2e-\(getpid()).jsonl"
    static let exported = "\(directory)/fuzz-e2e-\(getpid()).oracleGeneral"
}

let policies = EvictionPolicyKind.allCases.filter { $0 != .nsCache }
let warningSources: [SimulationConfiguration.WarningSource] = [.trace, .every(seconds: 1), .costAbove(10_000)]
let reactions: [MemoryPressurePolicy] = [
    .purgeAll, MemoryPressurePolicy(warning: .trimToFraction(0.5), critical: .purgeAll),
    MemoryPressurePolicy(warning: .trimIdle(seconds: 30), critical: .trimToFraction(0.25)),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 2 else { return 0 }
    let asHAR = bytes[0] & 1 == 1
    let selector = Selector(settings: Int(bytes[0] >> 1), policy: Int(bytes[1]))
    let body = Data(bytes: bytes + 2, count: count - 2)
    if asHAR {
        _ = FileManager.default.createFile(atPath: Scratch.input, contents: body)
        do {
            _ = try HARImporter.importFile(Scratch.input, to: Scratch.trace, generator: "fuzz")
        } catch let error as ImportError {
            requireNamesFile("\(error)", Scratch.input)
            return 0
        } catch let error as TraceError {
            requireNamesFile("\(error)", Scratch.input)
            return 0
        } catch {
            fatalError("HAR import threw an untyped error: \(type(of: error)): \(error)")
        }
    } else {
        _ = FileManager.default.createFile(atPath: Scratch.trace, contents: body)
    }
    runEverything(on: Scratch.trace, selector: selector)
    return 0
}

func requireNamesFile(_ message: String, _ path: String) {
    guard message.contains(path) else { fatalError("an error that does not name the file: \(message)") }
}

struct Selector {
    let settings: Int
    let policy: Int
}

func runEverything(on path: String, selector: Selector) {
    let workload: RecordedWorkload
    do {
        workload = try RecordedWorkload.load(path: path)
    } catch {
        requireNamesFile(error.description, path)
        return
    }
    let strategies = CacheKeyStrategy.allStrategies
    let trace = workload.simulationTrace(strategy: strategies[selector.settings % strategies.count])
    let warnings = warningSources[selector.settings % warningSources.count]
    let pressure = reactions[selector.settings / warningSources.count % reactions.count]
    let policy = policies[selector.policy % policies.count]
    let footprint = trace.memoryFootprint
    for memory in [64_000, max(footprint / 2, 1)] {
        let limits = CacheLimits(costLimit: memory)
        for disk in [nil, SimulationConfiguration.DiskTier(byteLimit: 1_000_000)] {
            let result = CacheSimulator.run(
                trace, SimulationConfiguration(limits: limits, policy: policy, pressure: pressure, warnings: warnings, disk: disk))
            guard result.hits <= Double(result.requests) else { fatalError("more hits than requests: \(policy)") }
        }
        let scoped = trace.scopedToLaunches()
        _ = OfflineBounds.belady(scoped, limits: limits)
        _ = OfflineBounds.spaceTimeBound(scoped, limits: limits)
    }
    do {
        _ = try TraceStatistics.of(path: path)
        _ = try LibCacheSimExport(strategy: ReplayDefaults.keyStrategy, layout: .oracleGeneral).export(path, to: Scratch.exported)
    } catch {
        fatalError("read by load but refused by stats or export: \(error)")
    }
}
