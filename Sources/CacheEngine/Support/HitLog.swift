import Synchronization

/// One thread's record in one stripe: the epoch it announced while reading, and a ring of
/// the hits it logged (slot, storing generation, time) that it appends to and writers take
/// from. Raw memory: a line the reader writes (its announcement, the ring's end, where it
/// last saw the ring's room end, so it reads the writers' line only once per lap, and the
/// hits it did not need to log), a line the writers write (the ring's start, how many of those
/// hits they counted), then the ring.
@usableFromInline
struct HitLog {
    @inlinable static var capacity: Int { 64 }
    @inlinable static var stride: Int { 128 + capacity * 20 }
    // The reader's line.
    @inlinable static var announcedOffset: Int { 0 }
    @inlinable static var endOffset: Int { 8 }
    @inlinable static var roomEndOffset: Int { 16 }
    @inlinable static var skippedOffset: Int { 24 }
    // The writers' line.
    @inlinable static var startOffset: Int { 64 }
    @inlinable static var skippedCountedOffset: Int { 72 }
    // The ring: slots, then generations, then times.
    @inlinable static var slotsOffset: Int { 128 }
    @inlinable static var generationsOffset: Int { 128 + capacity * 4 }
    @inlinable static var timesOffset: Int { 128 + capacity * 12 }

    @usableFromInline let base: UnsafeMutableRawPointer

    @inlinable init(_ base: UnsafeMutableRawPointer) { self.base = base }

    static func initialize(at base: UnsafeMutableRawPointer) {
        (base + announcedOffset).bindMemory(to: Atomic<UInt64>.self, capacity: 1).initialize(to: Atomic(0))
        (base + endOffset).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        (base + roomEndOffset).storeBytes(of: 0, as: Int.self)
        (base + skippedOffset).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        (base + startOffset).bindMemory(to: Atomic<Int>.self, capacity: 1).initialize(to: Atomic(0))
        (base + skippedCountedOffset).storeBytes(of: 0, as: Int.self)
    }

    /// The epoch announced, shifted left, with the low bit set while the thread reads; 0 when not.
    @inlinable var announced: UnsafeMutablePointer<Atomic<UInt64>> { (base + Self.announcedOffset).assumingMemoryBound(to: Atomic<UInt64>.self) }
    /// One past the last hit logged (the reader's).
    @inlinable var end: UnsafeMutablePointer<Atomic<Int>> { (base + Self.endOffset).assumingMemoryBound(to: Atomic<Int>.self) }
    /// The first hit not applied yet (the writers').
    @inlinable var start: UnsafeMutablePointer<Atomic<Int>> { (base + Self.startOffset).assumingMemoryBound(to: Atomic<Int>.self) }
    /// Hits the reader did not log, their effect logged already (`SlotShadows`): the reader's.
    @inlinable var skipped: UnsafeMutablePointer<Atomic<Int>> { (base + Self.skippedOffset).assumingMemoryBound(to: Atomic<Int>.self) }
    /// How many of those writers have counted (the writers').
    @inlinable var skippedCounted: Int {
        get { base.load(fromByteOffset: Self.skippedCountedOffset, as: Int.self) }
        nonmutating set { base.storeBytes(of: newValue, toByteOffset: Self.skippedCountedOffset, as: Int.self) }
    }

    /// Counts a hit that needs no log.
    @inlinable @inline(__always)
    func countSkippedHit() {
        skipped.pointee.store(skipped.pointee.load(ordering: .relaxed) &+ 1, ordering: .releasing)
    }

    @inlinable func slot(at position: Int) -> Slot {
        base.load(fromByteOffset: Self.slotsOffset &+ (position & (Self.capacity &- 1)) &* 4, as: Slot.self)
    }

    @inlinable func generation(at position: Int) -> UInt64 {
        base.load(fromByteOffset: Self.generationsOffset &+ (position & (Self.capacity &- 1)) &* 8, as: UInt64.self)
    }

    @inlinable func time(at position: Int) -> UInt64 {
        base.load(fromByteOffset: Self.timesOffset &+ (position & (Self.capacity &- 1)) &* 8, as: UInt64.self)
    }

    /// Logs a hit; false when the ring is full (the caller then takes the lock, which empties it).
    @inlinable @inline(__always)
    func log(_ slot: Slot, generation: UInt64, at time: UInt64) -> Bool {
        let position = end.pointee.load(ordering: .relaxed)
        // Where the ring's room ended when the reader last looked at the writers' line.
        if position >= base.load(fromByteOffset: Self.roomEndOffset, as: Int.self) {
            let room = start.pointee.load(ordering: .acquiring) &+ Self.capacity
            guard position < room else { return false }
            base.storeBytes(of: room, toByteOffset: Self.roomEndOffset, as: Int.self)
        }
        let offset = position & (Self.capacity &- 1)
        base.storeBytes(of: slot, toByteOffset: Self.slotsOffset &+ offset &* 4, as: Slot.self)
        base.storeBytes(of: generation, toByteOffset: Self.generationsOffset &+ offset &* 8, as: UInt64.self)
        base.storeBytes(of: time, toByteOffset: Self.timesOffset &+ offset &* 8, as: UInt64.self)
        end.pointee.store(position &+ 1, ordering: .releasing)
        return true
    }
}
