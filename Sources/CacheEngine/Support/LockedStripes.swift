/// A fixed number of `Locked` values, each on cache lines of its own, so threads
/// that lock different ones never write to a line another is reading (a lock word
/// beside another stripe's state would bounce between cores on every operation).
public struct LockedStripes<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline let base: UnsafeMutableRawPointer
    /// Bytes from one stripe to the next: whole pairs of cache lines, as the
    /// adjacent-line prefetcher moves lines in pairs.
    @usableFromInline let stride: Int
    public let count: Int

    public init(count: Int, _ make: (Int) -> Value) {
        precondition(count > 0, "at least one stripe")
        self.count = count
        stride = (MemoryLayout<Locked<Value>>.size + 127) & ~127
        base = UnsafeMutableRawPointer.allocate(byteCount: stride * count, alignment: 128)
        for index in 0..<count {
            (base + index * stride).bindMemory(to: Locked<Value>.self, capacity: 1).initialize(to: Locked(make(index)))
        }
    }

    deinit {
        for index in 0..<count {
            (base + index * stride).assumingMemoryBound(to: Locked<Value>.self).deinitialize(count: 1)
        }
        base.deallocate()
    }

    /// Runs `body` on stripe `index`'s value under its lock.
    @inlinable @inline(__always)
    public borrowing func withLock<Result: ~Copyable, E: Error>(
        _ index: Int, _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        precondition(index >= 0 && index < count, "stripe \(index) of \(count)")
        return try (base + index &* stride).assumingMemoryBound(to: Locked<Value>.self).pointee.withLock(body)
    }
}
