#if canImport(Glibc)
import Glibc
#endif

extension Array where Element: BitwiseCopyable {
    /// `count` elements, `prefix`'s then copies of `filler`, in memory that
    /// Linux is asked to back with 2 MiB pages (transparent huge pages, which many
    /// systems grant only on request) before any of it is written. For large arrays
    /// read at random, such as per-key metadata of a million-key trace: with 4 KiB
    /// pages nearly every access misses the TLB, and under a hypervisor each miss is a
    /// nested page walk. Elsewhere, and for arrays under two huge pages, plain memory.
    @_spi(Simulation) public static func inHugePages(count: Int, copying prefix: [Element] = [], filledWith filler: Element) -> [Element] {
        advised(capacity: count, copying: prefix, filling: filler)
    }

    /// `prefix`'s elements in memory advised as above, with room for `capacity` before the
    /// array grows: for per-key arrays that grow as a trace streams in. The room is left
    /// unwritten, so the kernel gives it pages only as elements are appended.
    @_spi(Simulation) public static func inHugePages(capacity: Int, copying prefix: [Element]) -> [Element] {
        advised(capacity: capacity, copying: prefix, filling: nil)
    }

    /// `prefix`, then, with a `filler`, copies of it up to `capacity`.
    private static func advised(capacity: Int, copying prefix: [Element], filling filler: Element?) -> [Element] {
        precondition(capacity >= prefix.count, "an array cannot shrink here")
        // With no room the standard library hands out its one empty array and writes its count
        // (a zero over a zero) into that shared storage, which ThreadSanitizer reports as a race.
        guard capacity > 0 else { return [] }
        return [Element](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            adviseHugePages(UnsafeMutableRawBufferPointer(buffer))
            prefix.withUnsafeBufferPointer { old in
                if let source = old.baseAddress { base.initialize(from: source, count: old.count) }
            }
            initialized = prefix.count
            if let filler {
                (base + prefix.count).initialize(repeating: filler, count: capacity - prefix.count)
                initialized = capacity
            }
        }
    }
}

/// The whole 2 MiB pages inside `buffer`, advised as huge pages (Linux only).
private func adviseHugePages(_ buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
    let hugePage = UInt(2 << 20)
    guard let base = buffer.baseAddress, UInt(buffer.count) >= 2 * hugePage else { return }
    let start = (UInt(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
    let end = (UInt(bitPattern: base) + UInt(buffer.count)) & ~(hugePage - 1)
    guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
    // Advice only: refused (no THP in this kernel, say), the memory is as before.
    _ = madvise(aligned, Int(end - start), MADV_HUGEPAGE)
    #endif
}
