import Synchronization

/// What a `MemoryCache` stripe holds, by slot: each key beside its value, when it expires,
/// its index tag and which storing it was, so one cache line answers a lookup's key
/// comparison, its expiry check and an eviction's unindexing. Freed slots are reused, so
/// the entries stay as dense as the cache is full, and the storage starts on a cache line,
/// so an entry of 32 or 64 bytes (integer keys and values: 32) never spans two.
///
/// One writer at a time changes it, while readers may read entries they found in the
/// `SlotIndex`: an entry that leaves stays as it was (`retire`) until the writer knows no
/// reader can still be reading it (`reclaim`), and storage that grows is moved to a new
/// block, the old one handed back to be freed just as late. Nothing here is mutating: the
/// writer's bookkeeping sits behind a pointer, so the variable readers read the storage's
/// address from is never written but when the storage moves.
@usableFromInline
struct SlotEntries<Key, Value>: ~Copyable {
    @usableFromInline
    struct Entry {
        @usableFromInline let key: Key
        @usableFromInline let value: Value
        /// Nanoseconds at which it expires (`UInt64.max`: never).
        @usableFromInline let expiry: UInt64
        /// The low 32 bits of its hash (`SlotIndex.tag`): all the index needs to find its bucket.
        @usableFromInline let tag: UInt32
        /// Which storing this was, unique in the stripe over 2³² storings: a hit logged for it
        /// applies only while its slot still holds it. Every writer applies the logs before it
        /// stores, so a stale log could apply to a later entry only if the stripe stored 2³²
        /// times between a reader finding the entry and logging its hit.
        @usableFromInline let generation: UInt32

        @inlinable
        init(key: Key, value: Value, tag: UInt32, expiry: UInt64, generation: UInt32) {
            self.key = key
            self.value = value
            self.expiry = expiry
            self.tag = tag
            self.generation = generation
        }
    }

    /// The writer's bookkeeping.
    @usableFromInline
    struct Books {
        /// Slots reclaimed and not reused yet: a stack, as long as the storage.
        @usableFromInline var free: UnsafeMutablePointer<Slot>
        @usableFromInline var capacity: Int
        /// One past the highest slot ever used.
        @usableFromInline var used = 0
        @usableFromInline var freeCount = 0
        @usableFromInline var generations: UInt32 = 0

        @usableFromInline
        init(capacity: Int) {
            self.capacity = capacity
            free = .allocate(capacity: capacity)
        }
    }

    /// Entries by slot; those below `used` and not in `free` are initialised.
    @usableFromInline let storage: Atomic<UnsafeMutablePointer<Entry>>
    @usableFromInline let books: UnsafeMutablePointer<Books>

    @usableFromInline
    init() {
        books = .allocate(capacity: 1)
        books.initialize(to: Books(capacity: 16))
        storage = Atomic(Self.allocate(capacity: 16))
    }

    /// Storage for `capacity` entries, from the start of a cache line.
    @usableFromInline
    static func allocate(capacity: Int) -> UnsafeMutablePointer<Entry> {
        UnsafeMutableRawPointer.allocate(byteCount: capacity * MemoryLayout<Entry>.stride, alignment: 64)
            .bindMemory(to: Entry.self, capacity: capacity)
    }

    // Inlinable: otherwise Swift 6.3's optimiser crashes inlining it into the
    // inlinable code that replaces a `State`'s entries ("resilient into fragile").
    @inlinable deinit {
        let base = storage.load(ordering: .relaxed)
        var isFree = [Bool](repeating: false, count: books.pointee.used)
        for index in 0..<books.pointee.freeCount { isFree[Int(books.pointee.free[index])] = true }
        for slot in 0..<books.pointee.used where !isFree[slot] { (base + slot).deinitialize(count: 1) }
        base.deallocate()
        books.pointee.free.deallocate()
        books.deinitialize(count: 1).deallocate()
    }

    /// The entry in `slot`, which must be initialised; read in place. Safe beside the writer
    /// for a slot found in the index. The storage's address is a sequentially consistent load,
    /// ordered with the writer's fence before it frees storage that grew (`LockedStripes.reclaim`).
    @inlinable
    subscript(slot: Slot) -> Entry {
        unsafeAddress { UnsafePointer(storage.load(ordering: .sequentiallyConsistent) + Int(slot)) }
    }

    /// Stores an entry in a free slot (the most recently reclaimed one) and returns the
    /// slot, and the storage it replaced when it grew (to be freed once no reader can be in it).
    @inlinable @inline(__always)
    func store(_ key: Key, _ value: Value, tag: UInt32, expiry: UInt64) -> (slot: Slot, replaced: UnsafeMutablePointer<Entry>?) {
        let slot: Slot
        var replaced: UnsafeMutablePointer<Entry>?
        if books.pointee.freeCount > 0 {
            books.pointee.freeCount &-= 1
            slot = books.pointee.free[books.pointee.freeCount]
        } else {
            if books.pointee.used == books.pointee.capacity { replaced = grow() }
            slot = Slot(books.pointee.used)
            books.pointee.used &+= 1
        }
        books.pointee.generations &+= 1
        (storage.load(ordering: .relaxed) + Int(slot)).initialize(
            to: Entry(key: key, value: value, tag: tag, expiry: expiry, generation: books.pointee.generations))
        return (slot, replaced)
    }

    /// Frees a retired slot no reader can still be reading.
    @inlinable @inline(__always)
    func reclaim(_ slot: Slot) {
        (storage.load(ordering: .relaxed) + Int(slot)).deinitialize(count: 1)
        books.pointee.free[books.pointee.freeCount] = slot
        books.pointee.freeCount &+= 1
    }

    /// Doubles the storage. Called only when no slot is free, so every entry below `used` is
    /// initialised and moves as a block; the old block keeps its bytes for readers.
    @usableFromInline
    func grow() -> UnsafeMutablePointer<Entry> {
        let capacity = books.pointee.capacity
        precondition(capacity < Int(Slot.max) / 2, "a cache stripe holds fewer than 2³⁰ entries")
        let old = storage.load(ordering: .relaxed)
        let entries = Self.allocate(capacity: capacity * 2)
        entries.moveInitialize(from: old, count: books.pointee.used)
        storage.store(entries, ordering: .releasing)
        books.pointee.free.deallocate()
        books.pointee.free = .allocate(capacity: capacity * 2)
        books.pointee.capacity = capacity * 2
        return old
    }
}
