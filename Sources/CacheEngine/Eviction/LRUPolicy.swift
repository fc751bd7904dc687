/// Least recently used: a hit moves the entry to the back; evict from the front.
public struct LRUPolicy: SingleQueuePolicy {
    public static let name = "LRU"
    public static let keepsReferenceBits = false
    public let limits: CacheLimits
    public var queue = SlotQueue()

    public init(limits: CacheLimits) { self.limits = limits }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) { queue.moveToBack(slot) }

    /// A hit unlinks the entry from its neighbours.
    @inlinable @inline(__always)
    public mutating func prefetchNeighbours(_ slot: Slot) { queue.table.prefetchNeighbours(slot) }

    public mutating func evictNext() -> Slot? { queue.popFront() }

    /// The queue's oldest two.
    @inlinable @inline(__always)
    public func upcomingVictims() -> (soonest: Slot, next: Slot) { queue.oldestTwo }

    /// Every entry, least recently used first.
    public func slotsByRecency() -> [Slot] { queue.slotsFrontToBack() }
}

extension LRUPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<LRUPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<LRUPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
