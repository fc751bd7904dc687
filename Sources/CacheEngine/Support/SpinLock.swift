import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A stripe's writers' lock: a flag a writer sets and clears, the others spinning meanwhile. A
/// writer holds it only for one cache operation, too short to be worth parking a waiter in the
/// kernel (as the standard library's `Mutex` does; BENCHMARKS.md, "Measurements behind the
/// code's shape").
@usableFromInline
enum SpinLock {
    @inlinable @inline(__always)
    static func take(_ lock: UnsafeMutablePointer<Atomic<Bool>>) {
        if lock.pointee.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { return }
        takeContended(lock)
    }

    @usableFromInline
    static func takeContended(_ lock: UnsafeMutablePointer<Atomic<Bool>>) {
        var spins = 0
        while true {
            while lock.pointee.load(ordering: .relaxed) {
                spins &+= 1
                // Past a few microseconds the holder is likely descheduled: let it run.
                if spins > 1_000 { sched_yield() }
            }
            if lock.pointee.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged { return }
        }
    }

    @inlinable @inline(__always)
    static func release(_ lock: UnsafeMutablePointer<Atomic<Bool>>) {
        lock.pointee.store(false, ordering: .releasing)
    }
}
