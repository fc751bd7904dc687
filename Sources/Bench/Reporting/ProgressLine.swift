import Foundation
import Synchronization

/// Progress of long work on stderr: one self-overwriting line on a terminal; otherwise (a log,
/// CI) a plain line at most every few seconds, so a long run shows it is alive without
/// flooding its log.
public struct ProgressLine: Sendable {
    private let terminal: Bool
    private let enabled: Bool
    private let clock = LineClock()

    /// Seconds between lines when stderr is not a terminal.
    public static let logInterval: Double = 5

    public init(enabled: Bool = true, terminal: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
        self.terminal = terminal
    }

    public func update(_ text: String) {
        guard enabled else { return }
        if terminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
        } else if clock.due(every: Self.logInterval) {
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    public func finish() {
        guard enabled, terminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// A line for people on stderr, shown whether or not stderr is a terminal: a caveat about the run.
    public func note(_ text: String) {
        finish()
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// When the last plain line went out, shared by the copies of one progress line.
    private final class LineClock: Sendable {
        private let last = Atomic<UInt64>(0)

        func due(every seconds: Double) -> Bool {
            let now = UInt64(ProcessInfo.processInfo.systemUptime * 1e9)
            let previous = last.load(ordering: .relaxed)
            guard previous == 0 || now &- previous >= UInt64(seconds * 1e9) else { return false }
            return last.compareExchange(expected: previous, desired: now, ordering: .relaxed).exchanged
        }
    }
}
