import CPrefetch

extension Array {
    /// Starts loading element `index`'s cache line and goes on: a hint that changes
    /// no result (`EvictionPolicy.prefetch`). An index past the end is ignored.
    @inlinable @inline(__always)
    func prefetchElement(_ index: Int) {
        guard index < count else { return }
        withUnsafeBufferPointer { cprefetch_for_write($0.baseAddress! + index) }
    }

    /// The same hint for the simulator's own arrays (SPI: inlinable across modules, yet
    /// no method on every adopter's arrays).
    @_spi(Simulation) @inlinable @inline(__always)
    public func prefetch(_ index: Int) { prefetchElement(index) }
}
