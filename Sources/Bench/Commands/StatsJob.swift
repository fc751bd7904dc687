import Foundation
import CacheSimulation
import Workloads

/// `stats`: summary statistics of traces, recorded and plain, as tables or JSON.
public struct StatsJob: Sendable {
    public var inputs = TraceInputs()
    public var json = false

    public init() {}

    /// One trace's statistics, as its kind has them.
    enum Entry: Encodable {
        case recorded(TraceStatistics), plain(PlainTraceStatistics)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .recorded(let statistics): try statistics.encode(to: encoder)
            case .plain(let statistics): try statistics.encode(to: encoder)
            }
        }
    }

    public func run() throws {
        guard inputs.requests == nil else { throw UsageError("--requests: stats reads whole traces") }
        var seen = Set<String>()
        let all = try inputs.readablePaths().filter { seen.insert($0).inserted }.map { path -> (path: String, entry: Entry) in
            if let plain = try inputs.plainTrace(path) { return (path, .plain(plain.plainStatistics)) }
            return (path, .recorded(try TraceStatistics.of(path: path, allowsEmpty: inputs.allowsEmpty)))
        }
        let names = all.map { URL(fileURLWithPath: $0.path).lastPathComponent }
        if json {
            // Keyed by file name, or by the path as given where two files share a name.
            let keys = zip(all, names).map { entry, name in names.filter { $0 == name }.count > 1 ? entry.path : name }
            print(try ResultsJSON.text(Dictionary(uniqueKeysWithValues: zip(keys, all.map(\.entry)).map { ($0, $1) })))
            return
        }
        let recorded = zip(names, all).compactMap { name, entry in if case .recorded(let s) = entry.entry { (name, s) } else { nil } }
        let plain = zip(names, all).compactMap { name, entry in if case .plain(let s) = entry.entry { (name, s) } else { nil } }
        if !recorded.isEmpty { print(TraceStatisticsTable.render(recorded)) }
        if !plain.isEmpty { print(TraceStatisticsTable.render(plain: plain)) }
    }
}
