/// An error in what the user typed (an option's value): the command line exits 2 for it, as for
/// any usage error, rather than 1, which says a run failed.
public protocol UsageError: Error, CustomStringConvertible {}
