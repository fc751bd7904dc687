import Foundation
import ImagePipeline
import Workloads

/// How a delimited text trace lays out its requests: libCacheSim's `csv` and `txt`
/// layouts, or any CSV or TSV described by a column mapping (`time=1,key=2,size=3`).
public struct DelimitedTraceFormat: Sendable, Equatable, CustomStringConvertible {
    public enum TimeUnit: String, Sendable, CaseIterable {
        case s, ms, us, ns
        var nanoseconds: Double {
            switch self {
            case .s: 1e9
            case .ms: 1e6
            case .us: 1e3
            case .ns: 1
            }
        }
    }

    /// The byte between fields; nil for one field a line (libCacheSim's `txt`: object ids).
    public var delimiter: UInt8?
    /// Columns, from 1. Without a time column requests are a second apart; without a size
    /// column every object weighs 1.
    public var key: Int
    public var time: Int?
    public var size: Int?
    public var timeUnit: TimeUnit
    /// Whether the columns were given (`--columns`); otherwise a header that names them
    /// (`obj_size,time,obj_id`) places them, and positions apply only without one.
    public var columnsGiven = false

    public init(delimiter: UInt8?, key: Int, time: Int? = nil, size: Int? = nil, timeUnit: TimeUnit = .s) {
        self.delimiter = delimiter
        self.key = key
        self.time = time
        self.size = size
        self.timeUnit = timeUnit
    }

    /// libCacheSim's `csv` as `export` writes it: `time,obj_id,obj_size`, seconds.
    public static let libCacheSimCSV = DelimitedTraceFormat(delimiter: UInt8(ascii: ","), key: 2, time: 1, size: 3)
    /// libCacheSim's `txt`: one object id a line.
    public static let libCacheSimText = DelimitedTraceFormat(delimiter: nil, key: 1)

    /// The layout a file's name suggests: `.csv` and `.tsv` (optionally gzipped), `.txt`.
    public static func detect(_ path: String) -> DelimitedTraceFormat? {
        let name = path.hasSuffix(".gz") ? String(path.dropLast(3)) : path
        if name.hasSuffix(".csv") { return libCacheSimCSV }
        if name.hasSuffix(".tsv") { return DelimitedTraceFormat(delimiter: UInt8(ascii: "\t"), key: 2, time: 1, size: 3) }
        if name.hasSuffix(".txt") { return libCacheSimText }
        return nil
    }

    /// Applies a mapping such as `time=1,key=2,size=3` (`key` is required; a column may
    /// be named once).
    public func with(columns mapping: String) throws(DelimitedTraceError) -> DelimitedTraceFormat {
        var format = self
        format.time = nil
        format.size = nil
        var key: Int?
        var used: Set<Int> = []
        var named: Set<String> = []
        for item in mapping.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let column = Int(parts[1]), column >= 1, column <= DelimitedTrace.mostColumns else {
                throw .badMapping("\(item) is not name=column (a column is a number from 1)")
            }
            guard used.insert(column).inserted else { throw .badMapping("column \(column) is named twice") }
            guard named.insert(parts[0]).inserted else { throw .badMapping("\(parts[0]) is given twice; give each of key, time, size once") }
            switch parts[0] {
            case "key": key = column
            case "time": format.time = column
            case "size": format.size = column
            default: throw .badMapping("\(parts[0]) is not a column name (key, time, size)")
            }
        }
        guard let key else { throw .badMapping("\(mapping) names no key column (key=N)") }
        format.key = key
        format.columnsGiven = true
        if format.delimiter == nil, max(key, format.time ?? 1, format.size ?? 1) > 1 {
            format.delimiter = UInt8(ascii: ",")
        }
        return format
    }

    public var description: String {
        let columns = [("time", time), ("key", Optional(key)), ("size", size)].compactMap { name, column in column.map { "\(name)=\($0)" } }
        let separator = switch delimiter {
        case nil: "one field a line"
        case UInt8(ascii: "\t")?: "tab-separated"
        case let byte?: "separated by \(Character(Unicode.Scalar(byte)))"
        }
        return "\(columns.joined(separator: ",")), \(separator), time in \(timeUnit.rawValue)"
    }
}

public enum DelimitedTraceError: Error, Equatable, CustomStringConvertible {
    case badMapping(String)

    public var description: String {
        switch self {
        case .badMapping(let reason): "--columns: \(reason)"
        }
    }
}

extension DelimitedTraceFormat {
    /// Header names of each column, as traces name them (compared without case).
    static let keyNames: Set<String> = ["obj_id", "object_id", "objid", "obj", "object", "key", "id", "url"]
    static let timeNames: Set<String> = ["time", "timestamp", "ts", "clock_time", "t"]
    static let sizeNames: Set<String> = ["obj_size", "object_size", "size", "bytes", "size_bytes"]

    /// The columns a header line names, or nil when none of its names is one of ours.
    /// A header that names columns but no key is refused: its key would be a guess.
    func placed(byHeader names: [String], path: String, line: Int) throws(TraceError) -> DelimitedTraceFormat? {
        let lowered = names.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        func column(_ known: Set<String>) -> Int? { lowered.firstIndex(where: known.contains).map { $0 + 1 } }
        let key = column(Self.keyNames), time = column(Self.timeNames), size = column(Self.sizeNames)
        guard key != nil || time != nil || size != nil else { return nil }
        guard let key else {
            throw .malformed(file: path, line: line, reason: "the header names columns (\(names.joined(separator: ","))) but none is the key "
                + "(\(Self.keyNames.sorted().joined(separator: ", "))); name it so, or give --columns key=N")
        }
        var format = self
        format.key = key
        format.time = time
        format.size = size
        return format
    }
}
