/// What a `MemoryCache` stripe holds, by slot: each key beside its value and its hash,
/// so one cache line answers both a lookup's key comparison and an eviction's
/// unindexing. Freed slots are reused, so the entries stay as dense as the cache is full.
///
/// Storage this struct alone owns, under its stripe's lock: arrays of optionals were
/// checked for uniqueness on every write and read three lines where this reads one.
@usableFromInline
struct SlotEntries<Key, Value>: ~Copyable {
    @usableFromInline
    struct Entry {
        @usableFromInline let key: Key
        @usableFromInline let value: Value
        @usableFromInline let hash: Int

        @inlinable
        init(key: Key, value: Value, hash: Int) {
            self.key = key
            self.value = value
            self.hash = hash
        }
    }

    /// Entries by slot; those below `used` and not in `free` are initialised.
    @usableFromInline var base: UnsafeMutablePointer<Entry>
    /// Slots freed and not reused yet: a stack, as long as `base`.
    @usableFromInline var free: UnsafeMutablePointer<Slot>
    @usableFromInline var capacity: Int
    /// One past the highest slot ever used.
    @usableFromInline var used = 0
    @usableFromInline var freeCount = 0

    @usableFromInline
    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
        free = .allocate(capacity: capacity)
    }

    // Inlinable: otherwise Swift 6.3's optimiser crashes inlining it into the
    // inlinable code that replaces a `State`'s entries ("resilient into fragile").
    @inlinable deinit {
        var isFree = [Bool](repeating: false, count: used)
        for index in 0..<freeCount { isFree[Int(free[index])] = true }
        for slot in 0..<used where !isFree[slot] { (base + slot).deinitialize(count: 1) }
        base.deallocate()
        free.deallocate()
    }

    /// The entry in `slot`, which must be occupied; read in place.
    @inlinable
    subscript(slot: Slot) -> Entry {
        unsafeAddress { UnsafePointer(base + Int(slot)) }
    }

    /// Stores an entry in a free slot (the most recently freed one) and returns the slot.
    @inlinable @inline(__always)
    mutating func store(_ key: Key, _ value: Value, hash: Int) -> Slot {
        let slot: Slot
        if freeCount > 0 {
            freeCount &-= 1
            slot = free[freeCount]
        } else {
            if used == capacity { grow() }
            slot = Slot(used)
            used &+= 1
        }
        (base + Int(slot)).initialize(to: Entry(key: key, value: value, hash: hash))
        return slot
    }

    /// Puts a new entry in the occupied `slot`; the old one is released.
    @inlinable @inline(__always)
    mutating func replace(_ slot: Slot, key: Key, value: Value, hash: Int) {
        (base + Int(slot)).pointee = Entry(key: key, value: value, hash: hash)
    }

    /// Takes the entry out of `slot`, which becomes free.
    @inlinable @inline(__always)
    mutating func remove(_ slot: Slot) -> Entry {
        free[freeCount] = slot
        freeCount &+= 1
        return (base + Int(slot)).move()
    }

    /// Doubles the storage. Called only when no slot is free, so every entry below
    /// `used` is initialised and moves as a block.
    @usableFromInline
    mutating func grow() {
        precondition(capacity < Int(Slot.max) / 2, "a cache stripe holds fewer than 2³⁰ entries")
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity * 2)
        entries.moveInitialize(from: base, count: used)
        base.deallocate()
        base = entries
        free.deallocate()
        free = .allocate(capacity: capacity * 2)
        capacity *= 2
    }
}
