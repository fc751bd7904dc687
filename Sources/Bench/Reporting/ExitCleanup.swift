import Dispatch
import Foundation
import ImagePipeline
import Workloads

/// What a run leaves behind when it ends early: files it had not finished writing, and a results
/// folder it made but never wrote (`also`). Removed at
/// exit (an error, `exit`) and on the signals that end a run from outside (Ctrl-C, `kill`,
/// a closed terminal), after which the signal ends the process as it would have.
public enum ExitCleanup {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let others = Locked<[@Sendable () -> Void]>([])

    /// Runs `cleanup` too on every way out.
    public static func also(_ cleanup: @escaping @Sendable () -> Void) { others.withLock { $0.append(cleanup) } }

    private static func run() {
        OutputFile.discardUnfinished()
        for cleanup in others.withLock({ all in defer { all.removeAll() }; return all }) { cleanup() }
    }

    /// Installed once, first thing in `main`.
    public static func install() {
        atexit { ExitCleanup.run() }
        // A parent may hand these signals down blocked (a test runner, a script's own mask):
        // blocked, they would never reach the source below, and `kill` would not end the run.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        for number in signals { sigaddset(&unblocked, number) }
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
        for number in signals {
            signal(number, SIG_IGN)  // delivered to the source below instead
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                run()
                signal(number, SIG_DFL)
                kill(getpid(), number)
            }
            source.resume()
            sources.append(source)
        }
    }
}
