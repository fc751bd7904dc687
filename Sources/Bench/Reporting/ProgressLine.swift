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
}
