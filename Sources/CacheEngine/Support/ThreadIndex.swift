import CThreadSlot
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small dense number for each live thread, so a structure can give every thread a
/// record of its own (`LockedStripes`' reader records). A thread takes the lowest free
/// number the first time it asks and gives it back when it exits; past `capacity`
/// live threads, the newcomers get none.
@usableFromInline
enum ThreadIndex {
    /// How many threads can hold a number at once.
    @inlinable static var capacity: Int { 16 }

    /// The calling thread's number, or -1 when every number is held by a live thread.
    @inlinable @inline(__always)
    static func current() -> Int {
        // Kept in a thread-local word as the number + 2: 0 is a thread that has not asked
        // yet, 1 one refused (not asked again).
        let stored = cthreadslot_get()
        return stored != 0 ? stored &- 2 : first()
    }

    /// A thread's first request: its number, kept where `current` reads it and under the
    /// registry's key, whose destructor gives the number back when the thread exits.
    @usableFromInline
    static func first() -> Int {
        guard let key = registry.key else {
            cthreadslot_set(1)
            return -1
        }
        let index = registry.take()
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: index &+ 2))
        cthreadslot_set(index &+ 2)
        return index
    }

    /// One more than the highest number held since the process started: the records a
    /// writer has to look at.
    @inlinable static var highWater: Int { registry.highWater.load(ordering: .sequentiallyConsistent) }

    @usableFromInline static let registry = Registry()

    @usableFromInline
    final class Registry: Sendable {
        /// Nil when the system had no key left: then no thread gets a number (and caches
        /// take their lock for every request).
        let key: pthread_key_t?
        /// The numbers held, a bit each: atomic, not a `Mutex` (which ThreadSanitizer does
        /// not see on Linux, so the exit of one thread and the first request of another
        /// were reported as a race).
        let held = Atomic<UInt64>(0)
        @usableFromInline let highWater = Atomic<Int>(0)

        init() {
            var key = pthread_key_t()
            let status = pthread_key_create(&key) { stored in
                guard let stored else { return }
                // Runs on the exiting thread. A cache it still uses in a later destructor
                // finds no number and takes one again, which this destructor then gives back.
                cthreadslot_set(0)
                let index = Int(bitPattern: stored) &- 2
                if index >= 0 { ThreadIndex.registry.give(index) }
            }
            self.key = status == 0 ? key : nil
        }

        /// The lowest free number, or -1.
        func take() -> Int {
            var current = held.load(ordering: .relaxed)
            while true {
                let free = ~current & (UInt64(1) << ThreadIndex.capacity &- 1)
                guard free != 0 else { return -1 }
                let index = free.trailingZeroBitCount
                let (exchanged, original) = held.compareExchange(
                    expected: current, desired: current | 1 << index, successOrdering: .acquiringAndReleasing,
                    failureOrdering: .relaxed)
                if exchanged {
                    highWater.raise(to: index + 1)
                    return index
                }
                current = original
            }
        }

        func give(_ index: Int) {
            held.bitwiseAnd(~(UInt64(1) << index), ordering: .acquiringAndReleasing)
        }
    }
}

extension Atomic where Value == Int {
    /// Raises the value to at least `candidate`.
    func raise(to candidate: Int) {
        var current = load(ordering: .relaxed)
        while current < candidate {
            let (exchanged, original) = compareExchange(
                expected: current, desired: candidate, successOrdering: .sequentiallyConsistent, failureOrdering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
