import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a stripe's writer does with the hits readers logged while it was not looking.
@usableFromInline
protocol LoggedHitsApplying: ~Copyable {
    /// A logged hit on `slot`, taken at `time`: applied as the hit would have been then.
    mutating func applyLoggedHit(_ slot: Slot, at time: UInt64)
    /// Hits that changed nothing but the count.
    mutating func countUnchangedHits(_ count: Int)
}

/// A fixed number of stripes, each a value behind a lock that readers need not take.
///
/// A writer (`withLock`) holds the stripe's lock, as any lock. A reader (`read`) instead
/// announces itself in a record of its own thread's (`ThreadIndex`), checks that no writer
/// is in, and reads the value in place; a writer, once in, waits for the readers already
/// inside to leave. A reader thus writes only its own record, so threads that mostly hit
/// share no line they write (one lock taken for every hit moved its line between the cores
/// each time: two threads on one cache did a fifth of one thread's work).
///
/// What a hit changes in the policy a reader logs in its record; the next writer applies
/// every record's log, in order, before it does anything else. No entry leaves between a
/// logged hit and its application, so each is applied as it would have been at its time,
/// and one thread's hits keep their order: the cache ends where some serial order of the
/// same requests would have left it.
///
/// Each stripe and each record sits on cache lines of its own.
@usableFromInline
struct LockedStripes<Value: LoggedHitsApplying & ~Copyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline
    struct Stripe: ~Copyable {
        /// The lock: set while a writer holds it, and readers keep out.
        @usableFromInline let writing = Atomic<Bool>(false)
        @usableFromInline var value: Value

        init(_ value: consuming Value) { self.value = value }
    }

    @usableFromInline let stripes: UnsafeMutableRawPointer
    @usableFromInline let records: UnsafeMutableRawPointer
    /// Bytes from one stripe to the next: whole pairs of cache lines, as the
    /// adjacent-line prefetcher moves lines in pairs.
    @usableFromInline let stride: Int
    @usableFromInline let count: Int

    @usableFromInline
    init(count: Int, _ make: (Int) -> Value) {
        precondition(count > 0, "at least one stripe")
        self.count = count
        stride = (MemoryLayout<Stripe>.size + 127) & ~127
        stripes = UnsafeMutableRawPointer.allocate(byteCount: stride * count, alignment: 128)
        for index in 0..<count {
            (stripes + index * stride).bindMemory(to: Stripe.self, capacity: 1).initialize(to: Stripe(make(index)))
        }
        let recordCount = count * ThreadIndex.capacity
        records = UnsafeMutableRawPointer.allocate(byteCount: recordCount * HitLog.stride, alignment: 128)
        for index in 0..<recordCount { HitLog.initialize(at: records + index * HitLog.stride) }
    }

    deinit {
        for index in 0..<count { stripe(index).deinitialize(count: 1) }
        stripes.deallocate()
        records.deallocate()
    }

    @inlinable @inline(__always)
    func stripe(_ index: Int) -> UnsafeMutablePointer<Stripe> {
        (stripes + index &* stride).assumingMemoryBound(to: Stripe.self)
    }

    @inlinable @inline(__always)
    func log(stripe index: Int, thread: Int) -> HitLog {
        HitLog(records + (index &* ThreadIndex.capacity &+ thread) &* HitLog.stride)
    }

    /// Runs `body` on stripe `index`'s value under its lock, once the hits readers logged
    /// are applied.
    @inlinable @inline(__always)
    func withLock<Result: Sendable, E: Error>(
        _ index: Int, _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
        precondition(index >= 0 && index < count, "stripe \(index) of \(count)")
        let stripe = self.stripe(index)
        lock(stripe)
        defer { stripe.pointee.writing.store(false, ordering: .releasing) }
        applyLoggedHits(index, to: &stripe.pointee.value)
        return try body(&stripe.pointee.value)
    }

    /// Takes a stripe's lock, spinning while another writer holds it: a writer holds it for
    /// a fraction of a microsecond, and a lock that parked its waiters in the kernel (the
    /// standard library's `Mutex`, a priority-inheritance futex) made two threads missing
    /// on one cache slower than one. The exchange is sequentially consistent: readers
    /// announced before it are seen, and readers after it see the lock taken.
    @inlinable @inline(__always)
    func lock(_ stripe: UnsafeMutablePointer<Stripe>) {
        if stripe.pointee.writing.compareExchange(
            expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged { return }
        lockContended(stripe)
    }

    @usableFromInline
    func lockContended(_ stripe: UnsafeMutablePointer<Stripe>) {
        var spins = 0
        while true {
            while stripe.pointee.writing.load(ordering: .relaxed) {
                spins &+= 1
                // Past a few microseconds the holder is likely descheduled: let it run.
                if spins > 1_000 { sched_yield() }
            }
            if stripe.pointee.writing.compareExchange(
                expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged { return }
        }
    }

    /// Runs `body` on stripe `index`'s value without its lock, with the calling thread's
    /// log; nil, without running it, when the thread has no record or a writer stays in
    /// (then the caller takes the lock). `body` must not change the value, and must
    /// not use this structure.
    @inlinable @inline(__always)
    func read<Result>(_ index: Int, _ body: (borrowing Value, HitLog) -> Result?) -> Result? {
        let thread = ThreadIndex.current()
        guard thread >= 0 else { return nil }
        let stripe = self.stripe(index)
        let log = self.log(stripe: index, thread: thread)
        var waits = 0
        while true {
            log.active.pointee.store(true, ordering: .sequentiallyConsistent)
            if !stripe.pointee.writing.load(ordering: .sequentiallyConsistent) {
                defer { log.active.pointee.store(false, ordering: .releasing) }
                return body(stripe.pointee.value, log)
            }
            log.active.pointee.store(false, ordering: .releasing)
            // A writer is in, for a moment: wait for it rather than queue on its lock (a
            // reader that did became a writer itself, and the threads convoyed on the lock).
            while stripe.pointee.writing.load(ordering: .relaxed) {
                waits &+= 1
                if waits > 2_000 { return nil }
            }
        }
    }

    /// Waits for the readers inside to leave, then applies and clears every log.
    @inlinable
    func applyLoggedHits(_ index: Int, to value: inout Value) {
        for thread in 0..<ThreadIndex.highWater {
            let log = self.log(stripe: index, thread: thread)
            var spins = 0
            while log.active.pointee.load(ordering: .sequentiallyConsistent) {
                spins &+= 1
                if spins > 100 { sched_yield() }
            }
            let pending = log.pending, unchanged = log.unchanged
            guard pending > 0 || unchanged > 0 else { continue }
            for position in 0..<pending { value.applyLoggedHit(log.slot(at: position), at: log.time(at: position)) }
            if unchanged > 0 { value.countUnchangedHits(unchanged) }
            log.clear()
        }
    }
}

/// One thread's record in one stripe: whether it is reading, and the hits it logged
/// (their slots and times) and counted. Raw memory, eight cache lines, the first of them
/// all the writer checks.
@usableFromInline
struct HitLog {
    @inlinable static var capacity: Int { 32 }
    @inlinable static var stride: Int { 512 }
    @inlinable static var slotsOffset: Int { 64 }
    @inlinable static var timesOffset: Int { 192 }

    @usableFromInline let base: UnsafeMutableRawPointer

    @inlinable init(_ base: UnsafeMutableRawPointer) { self.base = base }

    static func initialize(at base: UnsafeMutableRawPointer) {
        base.bindMemory(to: Atomic<Bool>.self, capacity: 1).initialize(to: Atomic(false))
        HitLog(base).clear()
    }

    @inlinable var active: UnsafeMutablePointer<Atomic<Bool>> { base.assumingMemoryBound(to: Atomic<Bool>.self) }

    /// Hits logged.
    @inlinable var pending: Int {
        get { base.load(fromByteOffset: 8, as: Int.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: 8, as: Int.self) }
    }

    /// Hits counted that change nothing else.
    @inlinable var unchanged: Int {
        get { base.load(fromByteOffset: 16, as: Int.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: 16, as: Int.self) }
    }

    @inlinable func slot(at position: Int) -> Slot {
        base.load(fromByteOffset: Self.slotsOffset &+ position &* 4, as: Slot.self)
    }

    @inlinable func time(at position: Int) -> UInt64 {
        base.load(fromByteOffset: Self.timesOffset &+ position &* 8, as: UInt64.self)
    }

    /// Logs a hit; false when the log is full (the caller then takes the lock).
    @inlinable @inline(__always)
    func log(_ slot: Slot, at time: UInt64) -> Bool {
        let position = pending
        guard position < Self.capacity else { return false }
        base.storeBytes(of: slot, toByteOffset: Self.slotsOffset &+ position &* 4, as: Slot.self)
        base.storeBytes(of: time, toByteOffset: Self.timesOffset &+ position &* 8, as: UInt64.self)
        pending = position &+ 1
        return true
    }

    @inlinable @inline(__always)
    func countUnchanged() { unchanged &+= 1 }

    @inlinable func clear() {
        pending = 0
        unchanged = 0
    }
}
