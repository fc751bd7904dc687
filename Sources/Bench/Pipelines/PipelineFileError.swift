/// A pipeline file the suite cannot take, with the place that says why: a YAML error, an
/// unknown field, a value out of range. The command line exits 2 with it (the file is the
/// user's to fix, as an option's value is).
public struct PipelineFileError: Error, CustomStringConvertible, Equatable {
    public let path: String
    /// 1-based, as an editor counts; 0 when the file as a whole is at fault.
    public let line: Int
    public let message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
}
