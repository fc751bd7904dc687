import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Memory figures of this process, as the kernel reports them.
public enum ProcessMetrics {
    /// Highest resident set size so far, in bytes.
    public static var peakResidentBytes: Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024  // Linux reports KiB
    }

    /// Resident set size now, in bytes (from /proc/self/statm); 0 where unavailable.
    public static var residentBytes: Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// This process's open descriptors by kind: sockets come and go with the HTTP
/// connection pools, so a leak check holds files and sockets to different bounds.
public struct OpenDescriptors: Codable, Sendable, Equatable {
    public var sockets = 0
    /// Everything else: files, pipes, event and epoll descriptors.
    public var others = 0
}

extension ProcessMetrics {
    /// Open descriptors of this process (from /proc/self/fd), not counting the one
    /// that reads the folder; zero where unavailable.
    public static var openDescriptors: OpenDescriptors {
        var counts = OpenDescriptors()
        guard let folder = opendir("/proc/self/fd") else { return counts }
        defer { closedir(folder) }
        let own = dirfd(folder)
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let descriptor = Int32(name), descriptor != own else { continue }
            if isSocket(descriptor) { counts.sockets += 1 } else { counts.others += 1 }
        }
        return counts
    }

    /// Whether an open descriptor of this process is a socket (its /proc link reads `socket:[inode]`).
    public static func isSocket(_ descriptor: Int32) -> Bool {
        var target = [CChar](repeating: 0, count: 16)
        let length = readlink("/proc/self/fd/\(descriptor)", &target, target.count)
        return length >= 7 && target.prefix(7).map { UInt8(bitPattern: $0) } == Array("socket:".utf8)
    }
}
