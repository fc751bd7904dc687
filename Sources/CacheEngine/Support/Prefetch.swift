import CPrefetch

extension Array {
    /// Starts loading element `index`'s cache line, and its second when it lies across two
    /// (an array's elements start 32 bytes into its storage, so a 64-byte element always
    /// does), and goes on: a hint that changes no result (`EvictionPolicy.prefetch`). An
    /// index past the end is ignored.
    @inlinable @inline(__always)
    func prefetchElement(_ index: Int) {
        guard index < count else { return }
        withUnsafeBufferPointer {
            let first = UnsafeRawPointer($0.baseAddress! + index)
            cprefetch_for_write(first)
            let last = first + (MemoryLayout<Element>.stride - 1)
            if UInt(bitPattern: last) >> 6 != UInt(bitPattern: first) >> 6 { cprefetch_for_write(last) }
        }
    }

    /// The same hint for the simulator's own arrays (SPI: inlinable across modules, yet
    /// no method on every adopter's arrays).
    @_spi(Simulation) @inlinable @inline(__always)
    public func prefetch(_ index: Int) { prefetchElement(index) }
}
