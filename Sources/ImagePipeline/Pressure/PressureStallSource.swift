import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Linux pressure-stall information (PSI): the kernel wakes a poller when tasks
/// stalled on memory for more than `stall` within `window`. One trigger per
/// level: by default warning when some task stalls 100 ms per 2 s, critical when
/// all do. Uses the process's cgroup v2 `memory.pressure` when readable, else
/// the system-wide `/proc/pressure/memory`. Creating it throws
/// `.unavailable` where neither accepts a trigger (no PSI, no permission).
public final class PressureStallSource: MemoryPressureSource {
    public struct Trigger: Sendable, Hashable {
        public enum Scope: String, Sendable { case some, full }
        public var scope: Scope
        public var stall: Duration
        public var window: Duration

        public init(_ scope: Scope, stall: Duration, window: Duration) {
            self.scope = scope
            self.stall = stall
            self.window = window
        }

        /// The line the kernel reads, in microseconds: "some 100000 2000000".
        var line: String {
            "\(scope.rawValue) \(stall.nanoseconds / 1000) \(window.nanoseconds / 1000)"
        }
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case unavailable(String)

        public var description: String {
            switch self { case .unavailable(let reason): "memory pressure-stall information unavailable: \(reason)" }
        }
    }

    /// The PSI file the triggers are armed on.
    public let path: String
    private let triggers: [(MemoryPressureLevel, Int32)]

    public init(
        warning: Trigger = Trigger(.some, stall: .milliseconds(100), window: .seconds(2)),
        critical: Trigger = Trigger(.full, stall: .milliseconds(100), window: .seconds(2)),
        candidates: [String] = PressureStallSource.candidatePaths()
    ) throws(Failure) {
        var reasons: [String] = []
        for path in candidates {
            do throws(Failure) {
                let warningFD = try Self.arm(warning, at: path)
                do throws(Failure) {
                    let criticalFD = try Self.arm(critical, at: path)
                    self.path = path
                    triggers = [(.warning, warningFD), (.critical, criticalFD)]
                    return
                } catch {
                    close(warningFD)
                    throw error
                }
            } catch {
                reasons.append(error.description)
            }
        }
        throw .unavailable(reasons.isEmpty ? "no PSI file to try" : reasons.joined(separator: "; "))
    }

    deinit {
        for (_, descriptor) in triggers { close(descriptor) }
    }

    /// The process's cgroup v2 `memory.pressure` files, then the system-wide file.
    public static func candidatePaths() -> [String] {
        var paths: [String] = []
        if let cgroups = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
           let line = cgroups.split(separator: "\n").first(where: { $0.hasPrefix("0::") }) {
            let group = String(line.dropFirst(3))
            paths += ["/sys/fs/cgroup\(group)/memory.pressure", "/sys/fs/cgroup/unified\(group)/memory.pressure"]
        }
        return paths.map { $0.replacingOccurrences(of: "//", with: "/") } + ["/proc/pressure/memory"]
    }

    private static func arm(_ trigger: Trigger, at path: String) throws(Failure) -> Int32 {
        let descriptor = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unavailable("\(path): \(String(cString: strerror(errno)))") }
        let line = trigger.line
        let written = line.withCString { write(descriptor, $0, strlen($0) + 1) }
        guard written > 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unavailable("\(path): trigger \"\(line)\" refused: \(reason)")
        }
        return descriptor
    }

    /// Polls the triggers on a dedicated thread (poll blocks) until the stream
    /// is cancelled or the file reports an error.
    public func events() -> AsyncStream<MemoryPressureLevel> {
        let (stream, continuation) = AsyncStream.makeStream(of: MemoryPressureLevel.self)
        let stopped = StopFlag()
        continuation.onTermination = { _ in stopped.stop() }
        let watched = triggers
        let thread = Thread { [self] in
            withExtendedLifetime(self) {
                var descriptors = watched.map { pollfd(fd: $0.1, events: Int16(POLLPRI), revents: 0) }
                while !stopped.isStopped {
                    guard poll(&descriptors, nfds_t(descriptors.count), 200) >= 0 || errno == EINTR else { break }
                    if descriptors.contains(where: { $0.revents & Int16(POLLERR) != 0 }) { break }
                    for (index, descriptor) in descriptors.enumerated() where descriptor.revents & Int16(POLLPRI) != 0 {
                        continuation.yield(watched[index].0)
                    }
                }
            }
            continuation.finish()
        }
        thread.name = "psi-memory-pressure"
        thread.start()
        return stream
    }
}

/// A flag the polling thread checks between polls.
private final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func stop() { flag.store(true, ordering: .relaxed) }
    var isStopped: Bool { flag.load(ordering: .relaxed) }
}
