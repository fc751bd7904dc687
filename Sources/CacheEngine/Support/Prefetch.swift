import CPrefetch

extension Array {
    /// Starts loading element `index`'s cache line and goes on: a hint that changes
    /// no result (`EvictionPolicy.prefetch`). An index past the end is ignored.
    @inlinable @inline(__always)
    package func prefetch(_ index: Int) {
        guard index < count else { return }
        withUnsafeBufferPointer { cprefetch_for_write($0.baseAddress! + index) }
    }
}
