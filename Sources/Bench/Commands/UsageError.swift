/// Input the user can fix by typing it otherwise (a bad option value, a trace the command
/// cannot read as asked): the command line exits 2 with the sentence and points at --help.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
