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

/// The median of a sample: the figure least moved by a noisy neighbour.
public func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}


extension ProcessMetrics {
    /// Open file descriptors of this process (from /proc/self/fd); 0 where unavailable.
    public static var openFileDescriptors: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"))?.count ?? 1) - 1
    }
}
