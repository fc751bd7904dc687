import CacheSimulation
import ImagePipeline
import Workloads

/// `export`: a recorded trace written for libCacheSim.
public struct ExportJob: Sendable {
    public var trace = ""
    public var output = ""
    /// csv or oracleGeneral, and the key strategy that names objects, as typed.
    public var layout = LibCacheSimExport.Layout.oracleGeneral.rawValue
    public var keys = ReplayDefaults.keyStrategy.description
    /// One object space for all sessions instead of one per device.
    public var shared = false
    public var allowsEmpty = false

    public init() {}

    /// What `export` prints.
    public func run() throws -> [String] {
        guard let layout = LibCacheSimExport.Layout(rawValue: layout) else { throw UsageError("--layout must be csv or oracleGeneral, not '\(layout)'") }
        guard let strategy = CacheKeyStrategy(name: keys) else {
            throw UsageError("unknown key strategy \"\(keys)\"; choose from \(CacheKeyStrategy.allStrategies.map(\.description).joined(separator: ", "))")
        }
        var export = LibCacheSimExport(strategy: strategy, layout: layout)
        export.scopeToSession = !shared
        export.allowsEmpty = allowsEmpty
        try OutputFile.refuseOverwriting(output, inputs: [trace])
        let summary = try export.export(trace, to: output)
        // libCacheSim replays plain lookups: figures that depend on what the layout leaves out are not comparable.
        return ["wrote \(output): \(summary.requests) requests (\(layout.rawValue), keys \(strategy))"]
            + (summary.notCarried.map { ["not carried by the layout (replayed as plain requests): \($0)"] } ?? [])
    }
}
