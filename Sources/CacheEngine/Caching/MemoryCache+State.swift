import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension MemoryCache {
    /// An entry that left, reported to the handler once the lock is released.
    @usableFromInline
    struct Departure: Sendable {
        @usableFromInline let key: Key
        @usableFromInline let value: Value
        @usableFromInline let reason: EvictionReason

        @inlinable
        init(key: Key, value: Value, reason: EvictionReason) {
            self.key = key
            self.value = value
            self.reason = reason
        }
    }

    /// A stripe's entries, the index that finds them by key, and the policy's core; and
    /// what left while readers might still be reading it.
    @usableFromInline
    struct State: ~Copyable, ConcurrentlyReadable {
        /// The box that owns the policy's core, for the calls that are not per request.
        @usableFromInline let box: any AnyCacheCore
        /// The same core as each request reaches it.
        @usableFromInline let core: CoreHandle
        @usableFromInline let timeToLive: UInt64?
        @usableFromInline var index = SlotIndex()
        @usableFromInline var entries = SlotEntries<Key, Value>()
        /// The stripe's epoch, as `LockedStripes` sets it.
        @usableFromInline var retireEpoch: UInt64 = 0
        /// Slots that left, oldest first, with the epoch they left in.
        @usableFromInline var retiredSlots: [(slot: Slot, epoch: UInt64)] = []
        /// Entry storage replaced as it grew, with the epoch it was replaced in.
        @usableFromInline var retiredBlocks: [(block: UnsafeMutableRawPointer, epoch: UInt64)] = []

        /// Each slot's shadow, for a policy whose hits only set marks (owned here, stamped by the policy).
        @usableFromInline let shadows: UnsafeMutablePointer<SlotShadows>
        /// Whether the policy took the shadows (`MakeCacheCoreBox`): only then are they kept.
        @usableFromInline let usesShadows: Bool
        /// What left during the operation under way, for the handler once the lock is released;
        /// collected only when the cache has a handler, so an evicting insert allocates nothing.
        @usableFromInline var departed: [Departure] = []
        @usableFromInline let collectsDepartures: Bool

        init(box: any AnyCacheCore, timeToLive: UInt64?, shadows: UnsafeMutablePointer<SlotShadows>, collectsDepartures: Bool) {
            self.box = box
            core = CoreHandle(box)
            self.timeToLive = timeToLive
            self.shadows = shadows
            usesShadows = box.usesShadows
            self.collectsDepartures = collectsDepartures
        }

        // Inlinable, as `SlotEntries`' deinit (the optimiser's "resilient into fragile" crash).
        @inlinable deinit {
            for retired in retiredBlocks { retired.block.deallocate() }
            shadows.deinitialize(count: 1).deallocate()
        }

        @inlinable
        mutating func countHits(_ count: Int) { core.countHits(count) }

        @inlinable var hasRetired: Bool { !retiredSlots.isEmpty || !retiredBlocks.isEmpty }

        @inlinable
        mutating func reclaim(retiredBefore epoch: UInt64) {
            var reclaimed = 0
            for retired in retiredSlots {
                guard retired.epoch < epoch else { break }
                entries.reclaim(retired.slot)
                reclaimed &+= 1
            }
            if reclaimed == retiredSlots.count { retiredSlots.removeAll(keepingCapacity: true) }
            else if reclaimed > 0 { retiredSlots.removeFirst(reclaimed) }
            if !retiredBlocks.isEmpty { reclaimBlocks(retiredBefore: epoch) }
        }

        @usableFromInline
        mutating func reclaimBlocks(retiredBefore epoch: UInt64) {
            retiredBlocks.removeAll { retired in
                guard retired.epoch < epoch else { return false }
                retired.block.deallocate()
                return true
            }
        }

        /// A hit a reader logged. Applied as it would have been at its time when its entry is
        /// still there (the policy, whose hits can wait, evicts nothing for it); only counted
        /// when a writer removed the entry as the reader found it.
        @inlinable
        mutating func applyLoggedHit(_ slot: Slot, generation: UInt64, at time: UInt64) {
            guard core.contains(slot), UInt64(entries[slot].generation) == generation else {
                core.countHits(1)
                return
            }
            let hit = core.lookup(slot, now: time) { _, _ in
                preconditionFailure("a logged hit removed an entry")
            }
            assert(hit, "a logged hit found its entry gone")
        }

        /// The slot of the key that hashes to `hash` and satisfies `matches`.
        @inlinable @inline(__always)
        func slot(hash: Int, matching matches: @Sendable (Key) -> Bool) -> Slot? {
            index.find(hash: hash) { matches(entries[$0].key) }
        }

        @inlinable @inline(__always)
        func value(in slot: Slot) -> Value { entries[slot].value }

        @inlinable
        mutating func allocate(_ key: Key, _ value: Value, hash: Int, now: UInt64) -> Slot {
            let expiry = timeToLive.map { now &+ $0 } ?? .max
            let (slot, replacedStorage) = entries.store(key, value, tag: SlotIndex.tag(hash), expiry: expiry)
            if let replacedStorage { retiredBlocks.append((UnsafeMutableRawPointer(replacedStorage), retireEpoch)) }
            if usesShadows {
                // Before it is indexed: no shadow of the slot's last entry speaks for this one.
                shadows.pointee.cover(slot)
                shadows.pointee.stamp(slot)
            }
            index.insert(slot, hash: hash)
            return slot
        }

        /// Frees a slot the core let go and keeps what it held for the handler.
        @inlinable
        mutating func depart(_ slot: Slot, _ reason: EvictionReason) {
            let departure = release(slot, reason)
            if collectsDepartures { departed.append(departure) }
        }

        /// What left during the operation, handed over as the lock is about to be released.
        @inlinable
        mutating func takeDepartures() -> [Departure] {
            defer { departed = [] }
            return departed
        }

        /// Stores a new entry for `key` through the policy, which may evict to make room;
        /// a refused entry leaves at once. Whether it was stored.
        @inlinable
        mutating func store(_ key: Key, _ value: Value, hash: Int, fingerprint: UInt64, cost: Int, missCost: Int, now: UInt64) -> Bool {
            let slot = allocate(key, value, hash: hash, now: now)
            let stored = core.insert(NewEntry(slot: slot, cost: cost, fingerprint: fingerprint, missCost: missCost), now: now) {
                depart($0, $1)
            }
            if !stored { _ = release(slot, .capacity) }
            return stored
        }

        /// Takes a slot the core no longer holds out of the index and hands back what it
        /// held; the entry itself stays for readers until it is reclaimed.
        @inlinable
        mutating func release(_ slot: Slot, _ reason: EvictionReason) -> Departure {
            // The entry stays as it is for readers until `reclaim`.
            let entry = entries[slot]
            index.remove(slot, tag: entry.tag)
            retiredSlots.append((slot, retireEpoch))
            return Departure(key: entry.key, value: entry.value, reason: reason)
        }
    }
}

/// Nanoseconds on the coarse monotonic clock: a few milliseconds' resolution is
/// plenty for time-to-live and idle trims, and it is the cheaper clock to read.
@inlinable
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}
