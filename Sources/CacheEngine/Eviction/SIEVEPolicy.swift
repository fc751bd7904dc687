/// SIEVE (Zhang et al., NSDI 2024): a FIFO queue with a visited bit and a hand.
/// Hits set the bit. To evict, the hand walks from the oldest entry towards the
/// newest, clearing bits it passes, and evicts the first unvisited entry; it
/// stays where it stopped for the next eviction and wraps to the oldest entry at
/// the end. Unlike CLOCK, survivors keep their place in the queue.
public struct SIEVEPolicy: SingleQueuePolicy {
    public static let name = "SIEVE"
    public static let keepsReferenceBits = true
    public static var hitsAreIdempotent: Bool { true }
    public let limits: CacheLimits
    public var queue = SlotQueue()
    /// The next entry the hand examines; `none` means start from the oldest.
    private(set) var hand: Slot = SlotTable.none

    public init(limits: CacheLimits) { self.limits = limits }

    // Written only when clear: a hot entry's line then stays clean, shared by the cores that read it.
    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        if queue.table.counter[Int(slot)] == 0 { queue.table.counter[Int(slot)] = 1 }
    }

    public mutating func remove(_ slot: Slot) {
        if hand == slot { hand = queue.table.after(slot) }
        queue.unlink(slot)
    }

    public mutating func evictNext() -> Slot? {
        guard !queue.isEmpty else { return nil }
        var candidate = hand == SlotTable.none ? queue.front : hand
        while queue.table.counter[Int(candidate)] != 0 {
            queue.table.clearMark(candidate)
            candidate = queue.table.after(candidate)
            if candidate == SlotTable.none { candidate = queue.front }
        }
        hand = queue.table.after(candidate)
        queue.unlink(candidate)
        return candidate
    }

    /// The next two victims are the first two unvisited entries from the hand (named only
    /// before the hand wraps).
    public func upcomingVictims() -> (soonest: Slot, next: Slot) {
        queue.firstTwoUnmarked(from: hand == SlotTable.none ? queue.front : hand)
    }

    public mutating func removeAll() {
        queue.removeAll()
        hand = SlotTable.none
    }
}

extension SIEVEPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<SIEVEPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<SIEVEPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
