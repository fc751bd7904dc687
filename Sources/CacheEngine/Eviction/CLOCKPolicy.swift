/// CLOCK (second chance): a hit sets the entry's reference bit; the hand, at the
/// front of the queue, clears a set bit and passes the entry to the back, and
/// evicts the first entry whose bit is clear. New entries start with a clear bit.
public struct CLOCKPolicy: SingleQueuePolicy {
    public static let name = "CLOCK"
    public static let keepsReferenceBits = true
    public static var hitsAreIdempotent: Bool { true }
    public let limits: CacheLimits
    public var queue = SlotQueue()

    public init(limits: CacheLimits) { self.limits = limits }

    // Written only when clear: a hot entry's line then stays clean, shared by the cores that read it.
    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {
        if queue.table.counter[Int(slot)] == 0 { queue.table.counter[Int(slot)] = 1 }
    }

    public mutating func evictNext() -> Slot? {
        while !queue.isEmpty {
            let hand = queue.front
            if queue.table.counter[Int(hand)] == 0 {
                queue.unlink(hand)
                return hand
            }
            queue.table.clearMark(hand)
            queue.moveToBack(hand)
        }
        return nil
    }

    /// The hand passes marked entries to the back, so the next two victims are the first two
    /// unmarked ones from the front.
    public func upcomingVictims() -> (soonest: Slot, next: Slot) {
        queue.firstTwoUnmarked(from: queue.front)
    }
}

extension CLOCKPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<CLOCKPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<CLOCKPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
