import CacheSimulation

extension SimulationConfiguration.WarningSource {
    /// Why a warning source could not be read.
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "unknown warning source \"\(text)\"; write trace, none, every:30s or above:64MB" }
    }

    /// `trace`, `none`, `every:30s` (a warning every so many seconds of trace
    /// time) or `above:64MB` (whenever the memory tier holds more).
    public init(parsing text: String) throws(ParseError) {
        let lowered = text.lowercased()
        if lowered == "trace" { self = .trace; return }
        if lowered == "none" { self = .none; return }
        if lowered.hasPrefix("every:"), lowered.hasSuffix("s"), let seconds = Double(lowered.dropFirst(6).dropLast()),
           seconds > 0, seconds.isFinite {
            self = .every(seconds: seconds)
            return
        }
        if lowered.hasPrefix("above:"), case .bytes(let bytes)? = try? ByteSize(parsing: String(text.dropFirst(6))) {
            self = .costAbove(bytes)
            return
        }
        throw ParseError(text: text)
    }
}
