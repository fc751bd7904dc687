import Synchronization

/// A word per slot that lets a hit skip its log when a policy's hit only sets a mark
/// (`EvictionPolicy.hitsAreIdempotent`: FIFO, CLOCK, SIEVE). A reader that logs a hit stores its
/// time there (shifted left, so even); a writer stamps the word with a fresh odd number
/// wherever the policy clears the slot's mark (the hand passing, a new entry). A later hit
/// at the same time on the clock then finds its own effect already logged (the mark set or
/// pending, the last use at that time) and only counts itself. So the word is never ahead
/// of the policy: a reader swaps its time in by compare-and-swap against the value it read
/// before logging, and a stamp never repeats, so a clear in between always wins.
///
/// Chunks never move (a reader may hold one while the writer adds others), and the
/// directory of chunks is replaced whole as it grows, the old ones kept until the cache
/// goes, as `SlotIndex` keeps its tables.
@usableFromInline
struct SlotShadows: ~Copyable {
    @inlinable static var chunkShift: Int { 10 }
    @inlinable static var chunkSize: Int { 1 << chunkShift }

    @usableFromInline typealias Chunk = UnsafeMutablePointer<Atomic<UInt64>>
    /// The current directory: its chunks, then (past `Books.capacity` of them) the directory
    /// it replaced.
    @usableFromInline let directory: Atomic<UnsafeMutablePointer<UnsafeMutableRawPointer?>>
    /// The writer's bookkeeping (readers read only `directory`).
    @usableFromInline let books: UnsafeMutablePointer<Books>

    @usableFromInline
    struct Books {
        @usableFromInline var chunks = 0
        @usableFromInline var capacity: Int
        /// The last stamp given; stamps are odd and never repeat.
        @usableFromInline var stamp: UInt64 = 1

        init(capacity: Int) { self.capacity = capacity }
    }

    @usableFromInline
    init() {
        books = .allocate(capacity: 1)
        books.initialize(to: Books(capacity: 4))
        directory = Atomic(Self.makeDirectory(capacity: 4, replacing: nil))
    }

    // Inlinable, as `SlotEntries`' deinit (the optimiser's "resilient into fragile" crash).
    @inlinable deinit {
        var current: UnsafeMutablePointer<UnsafeMutableRawPointer?>? = directory.load(ordering: .relaxed)
        var capacity = books.pointee.capacity
        for chunk in 0..<books.pointee.chunks { current![chunk]!.deallocate() }
        while let table = current {
            current = table[capacity]?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
            table.deallocate()
            capacity /= 2
        }
        books.deinitialize(count: 1).deallocate()
    }

    static func makeDirectory(
        capacity: Int, replacing old: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
        let table = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: capacity + 1)
        table.initialize(repeating: nil, count: capacity)
        (table + capacity).initialize(to: old.map { UnsafeMutableRawPointer($0) })
        return table
    }

    /// The word of `slot`, which `cover` has covered.
    @inlinable @inline(__always)
    func word(_ slot: Slot) -> Chunk {
        let chunk = directory.load(ordering: .acquiring)[Int(slot) >> Self.chunkShift].unsafelyUnwrapped
        return chunk.assumingMemoryBound(to: Atomic<UInt64>.self) + (Int(slot) & (Self.chunkSize - 1))
    }

    /// Makes sure `slot` has a word (the writer, before the slot is indexed).
    @inlinable @inline(__always)
    func cover(_ slot: Slot) {
        if Int(slot) >> Self.chunkShift >= books.pointee.chunks { addChunks(toCover: slot) }
    }

    @usableFromInline
    func addChunks(toCover slot: Slot) {
        while Int(slot) >> Self.chunkShift >= books.pointee.chunks {
            var table = directory.load(ordering: .relaxed)
            if books.pointee.chunks == books.pointee.capacity {
                let grown = Self.makeDirectory(capacity: books.pointee.capacity * 2, replacing: table)
                for chunk in 0..<books.pointee.chunks { grown[chunk] = table[chunk] }
                books.pointee.capacity *= 2
                directory.store(grown, ordering: .releasing)
                table = grown
            }
            let chunk = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: Self.chunkSize)
            for index in 0..<Self.chunkSize { (chunk + index).initialize(to: Atomic(0)) }
            table[books.pointee.chunks] = UnsafeMutableRawPointer(chunk)
            books.pointee.chunks += 1
        }
    }

    /// Stamps `slot`'s word: the policy cleared its mark (or the slot holds a new entry).
    @inlinable @inline(__always)
    func stamp(_ slot: Slot) {
        books.pointee.stamp &+= 2
        word(slot).pointee.store(books.pointee.stamp, ordering: .releasing)
    }
}
