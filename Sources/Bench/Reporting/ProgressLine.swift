import Foundation

/// A single self-overwriting progress line on stderr, shown only when stderr
/// is a terminal so logs and CI output stay clean.
public struct ProgressLine: Sendable {
    private let enabled: Bool

    public init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
    }

    public func update(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
    }

    public func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// A line for people on stderr, shown whether or not stderr is a terminal: a caveat about the run.
    public func note(_ text: String) {
        finish()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
