import Synchronization

/// A stripe's value as `LockedStripes` needs it: what its writer does with the hits
/// readers logged, and with what it retired while readers might still be reading it.
@usableFromInline
protocol ConcurrentlyReadable: ~Copyable {
    /// A hit a reader logged on `slot` while it held the storing `generation`, at `time`.
    mutating func applyLoggedHit(_ slot: Slot, generation: UInt64, at time: UInt64)
    /// The epoch what the writer retires now is tagged with.
    var retireEpoch: UInt64 { get set }
    /// Whether anything retired waits to be freed.
    var hasRetired: Bool { get }
    /// Frees what was retired before `epoch`: no reader can still be reading it.
    mutating func reclaim(retiredBefore epoch: UInt64)
    /// Counts hits that readers did not log (their effect was logged already).
    mutating func countHits(_ count: Int)
}

/// A fixed number of stripes, each a value behind a lock that readers need not take.
///
/// A writer (`withLock`) holds the stripe's lock, as any lock. A reader (`read`) takes
/// nothing and waits for nobody: it reads the value beside the writer, which keeps every
/// word a reader may read either atomic (the index's buckets, the storage's address) or
/// unchanged until no reader can be reading it (epoch-based reclamation: the reader
/// announces the stripe's epoch in a record of its own thread's; a writer frees what it
/// retired at once when no reader is inside, and otherwise advances the epoch and frees it
/// only once every reader inside announced a later one). A reader thus writes only its own
/// record, so threads that mostly hit share no line they write (a lock taken for every hit
/// moves its line between the cores each time; BENCHMARKS.md, "Measurements behind the code's shape").
///
/// What a hit changes in the policy the reader logs in its record (a ring: the reader
/// appends, writers take); each writer applies every log, in order, before anything else.
/// One thread's requests are therefore decided exactly as under the lock; between threads,
/// a hit on an entry a writer removes at that moment finds it (the hit counts, the policy
/// no longer holds the entry to move).
@usableFromInline
struct LockedStripes<Value: ConcurrentlyReadable & ~Copyable>: ~Copyable, @unchecked Sendable {
    @usableFromInline
    struct Stripe: ~Copyable {
        @usableFromInline var value: Value

        init(_ value: consuming Value) { self.value = value }
    }

    /// Each stripe's value, starting a pair of cache lines: what readers read of it (the
    /// addresses of its tables) is best kept off lines writers write on every request.
    @usableFromInline let stripes: UnsafeMutableRawPointer
    /// Each stripe's lock, set while a writer holds it, and its epoch, advanced by each
    /// writer that retired something and announced by readers: each on lines of its own.
    @usableFromInline let locks: UnsafeMutablePointer<Atomic<Bool>>
    @usableFromInline let epochs: UnsafeMutablePointer<Atomic<UInt64>>
    @usableFromInline let records: UnsafeMutableRawPointer
    /// Bytes from one stripe to the next: whole pairs of cache lines, as the
    /// adjacent-line prefetcher moves lines in pairs.
    @usableFromInline let stride: Int
    @usableFromInline let count: Int
    /// Whether anyone reads without the lock; if not, writers free what they retire at once
    /// and have no logs to apply.
    @usableFromInline let readers: Bool

    @usableFromInline
    init(count: Int, readers: Bool = true, _ make: (Int) -> Value) {
        precondition(count > 0, "at least one stripe")
        self.count = count
        self.readers = readers
        stride = (MemoryLayout<Stripe>.size + 127) & ~127
        stripes = UnsafeMutableRawPointer.allocate(byteCount: stride * count, alignment: 128)
        for index in 0..<count {
            let stripe = (stripes + index * stride).bindMemory(to: Stripe.self, capacity: 1)
            stripe.initialize(to: Stripe(make(index)))
            stripe.pointee.value.retireEpoch = 1  // the epoch's first value, below
        }
        locks = UnsafeMutableRawPointer.allocate(byteCount: 128 * count, alignment: 128)
            .bindMemory(to: Atomic<Bool>.self, capacity: 128 * count)
        epochs = UnsafeMutableRawPointer.allocate(byteCount: 128 * count, alignment: 128)
            .bindMemory(to: Atomic<UInt64>.self, capacity: 16 * count)
        for index in 0..<count {
            (locks + 128 * index).initialize(to: Atomic(false))
            (epochs + 16 * index).initialize(to: Atomic(1))
        }
        let recordCount = readers ? count * ThreadIndex.capacity : 0
        records = UnsafeMutableRawPointer.allocate(byteCount: recordCount * HitLog.stride, alignment: 128)
        for index in 0..<recordCount { HitLog.initialize(at: records + index * HitLog.stride) }
    }

    deinit {
        for index in 0..<count { stripe(index).deinitialize(count: 1) }
        stripes.deallocate()
        locks.deallocate()
        epochs.deallocate()
        records.deallocate()
    }

    @inlinable @inline(__always)
    func stripe(_ index: Int) -> UnsafeMutablePointer<Stripe> {
        (stripes + index &* stride).assumingMemoryBound(to: Stripe.self)
    }

    @inlinable @inline(__always)
    func lock(_ index: Int) -> UnsafeMutablePointer<Atomic<Bool>> { locks + 128 &* index }

    @inlinable @inline(__always)
    func epoch(_ index: Int) -> UnsafeMutablePointer<Atomic<UInt64>> { epochs + 16 &* index }

    @inlinable @inline(__always)
    func log(stripe index: Int, thread: Int) -> HitLog {
        HitLog(records + (index &* ThreadIndex.capacity &+ thread) &* HitLog.stride)
    }

    /// Runs `body` on stripe `index`'s value under its lock, once the hits readers logged
    /// are applied; then frees what no reader can still be reading.
    @inlinable @inline(__always)
    func withLock<Result: Sendable, E: Error>(
        _ index: Int, _ body: (inout Value) throws(E) -> Result
    ) throws(E) -> Result {
        precondition(index >= 0 && index < count, "stripe \(index) of \(count)")
        let stripe = self.stripe(index), lock = self.lock(index)
        SpinLock.take(lock)
        defer {
            if stripe.pointee.value.hasRetired {
                if readers { reclaim(index, stripe) } else { stripe.pointee.value.reclaim(retiredBefore: .max) }
            }
            SpinLock.release(lock)
        }
        if readers { applyLoggedHits(index, to: &stripe.pointee.value) }
        return try body(&stripe.pointee.value)
    }

    /// Frees what no reader can still be reading. A full fence orders the writer's changes
    /// (the index no longer leads to what it retired) before its look at the readers'
    /// announcements, and a reader rereads the bucket it follows after announcing, so a
    /// reader the look misses cannot reach anything retired: with nobody inside, everything
    /// retired is freed and the epoch, which readers read, is left as it is. A reader caught
    /// inside holds back what was retired from its epoch on, and the epoch advances, so
    /// what this section retired is told from what later readers may find.
    @inlinable
    func reclaim(_ index: Int, _ stripe: UnsafeMutablePointer<Stripe>) {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        var oldestInside = UInt64.max
        for thread in 0..<ThreadIndex.highWater {
            let announced = log(stripe: index, thread: thread).announced.pointee.load(ordering: .sequentiallyConsistent)
            if announced & 1 != 0 { oldestInside = min(oldestInside, announced >> 1) }
        }
        guard oldestInside != .max else {
            stripe.pointee.value.reclaim(retiredBefore: .max)
            return
        }
        let epoch = self.epoch(index).pointee.load(ordering: .relaxed)
        self.epoch(index).pointee.store(epoch &+ 1, ordering: .sequentiallyConsistent)
        stripe.pointee.value.retireEpoch = epoch &+ 1
        stripe.pointee.value.reclaim(retiredBefore: min(oldestInside, epoch &+ 1))
    }

    /// Runs `body` on stripe `index`'s value without its lock, beside any writer, with the
    /// calling thread's log and its `Reader`; nil, without running it, when the thread has no
    /// record (then the caller takes the lock). `body` must announce itself (`Reader.enter`)
    /// before it reads anything a writer frees once no reader can be reading it (an entry,
    /// storage that grew), must not change the value, must trust only what it finds, and must
    /// not use this structure. Only for stripes made with `readers` (the caller's gate, so the
    /// hit path tests nothing more here).
    @inlinable @inline(__always)
    func read<Result>(_ index: Int, _ body: (borrowing Value, HitLog, Reader) -> Result?) -> Result? {
        assert(readers, "a read without the lock on stripes made without readers")
        let thread = ThreadIndex.current()
        guard thread >= 0 else { return nil }
        let log = self.log(stripe: index, thread: thread)
        defer {
            if log.announced.pointee.load(ordering: .relaxed) != 0 { log.announced.pointee.store(0, ordering: .releasing) }
        }
        return body(stripe(index).pointee.value, log, Reader(announced: log.announced, epoch: epoch(index)))
    }

    /// A reader's announcement, made only when it is about to follow what it found.
    @usableFromInline
    struct Reader {
        @usableFromInline let announced: UnsafeMutablePointer<Atomic<UInt64>>
        @usableFromInline let epoch: UnsafeMutablePointer<Atomic<UInt64>>

        @inlinable init(announced: UnsafeMutablePointer<Atomic<UInt64>>, epoch: UnsafeMutablePointer<Atomic<UInt64>>) {
            self.announced = announced
            self.epoch = epoch
        }

        /// Announces the stripe's current epoch (once): from then until the read ends, nothing
        /// retired at or after it is freed. The epoch is read again after announcing, so a
        /// writer's scan that missed the announcement had advanced it first.
        @inlinable @inline(__always)
        func enter() {
            guard announced.pointee.load(ordering: .relaxed) == 0 else { return }
            var current = epoch.pointee.load(ordering: .acquiring)
            while true {
                announced.pointee.store(current << 1 | 1, ordering: .sequentiallyConsistent)
                let now = epoch.pointee.load(ordering: .sequentiallyConsistent)
                if now == current { return }
                current = now
            }
        }
    }

    /// Applies and empties every thread's log.
    @inlinable
    func applyLoggedHits(_ index: Int, to value: inout Value) {
        for thread in 0..<ThreadIndex.highWater {
            let log = self.log(stripe: index, thread: thread)
            let skipped = log.skipped.pointee.load(ordering: .acquiring)
            if skipped != log.skippedCounted {
                value.countHits(skipped &- log.skippedCounted)
                log.skippedCounted = skipped
            }
            let end = log.end.pointee.load(ordering: .acquiring)
            var position = log.start.pointee.load(ordering: .relaxed)
            guard position != end else { continue }
            while position != end {
                value.applyLoggedHit(log.slot(at: position), generation: log.generation(at: position), at: log.time(at: position))
                position &+= 1
            }
            log.start.pointee.store(end, ordering: .releasing)
        }
    }
}
