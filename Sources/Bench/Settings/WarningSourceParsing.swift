import CacheSimulation

extension SimulationConfiguration.WarningSource {
    /// Why a warning source could not be read.
    public struct ParseError: Error, CustomStringConvertible {
        public let text: String
        public var reason: String?
        public var description: String {
            reason.map { "warning source \"\(text)\": \($0)" } ?? "unknown warning source \"\(text)\"; write trace, none, every:30s or above:64MB"
        }
    }

    /// `trace`, `none`, `every:30s` (a warning every so many seconds of trace
    /// time) or `above:64MB` (whenever the memory tier holds more).
    public init(parsing text: String) throws(ParseError) {
        let lowered = text.lowercased()
        if lowered == "trace" { self = .trace; return }
        if lowered == "none" { self = .none; return }
        if lowered.hasPrefix("every:") {
            guard lowered.hasSuffix("s"), let seconds = Double(lowered.dropFirst(6).dropLast()), seconds.isFinite else {
                throw ParseError(text: text, reason: "every: takes a period in seconds, such as every:30s")
            }
            guard seconds > 0 else { throw ParseError(text: text, reason: "the period must be above 0 s, such as every:30s") }
            self = .every(seconds: seconds)
            return
        }
        if lowered.hasPrefix("above:") {
            let size: ByteSize
            do { size = try ByteSize(parsing: String(text.dropFirst(6))) } catch { throw ParseError(text: text, reason: error.description) }
            guard case .bytes(let bytes) = size else { throw ParseError(text: text, reason: "above: takes a size in bytes, such as above:64MB") }
            self = .costAbove(bytes)
            return
        }
        throw ParseError(text: text)
    }
}
