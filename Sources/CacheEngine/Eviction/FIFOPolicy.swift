/// First in, first out: hits change nothing; evict the oldest insertion.
public struct FIFOPolicy: SingleQueuePolicy {
    public static let name = "FIFO"
    public static let keepsReferenceBits = false
    public static var hitsAreIdempotent: Bool { true }
    public let limits: CacheLimits
    public var queue = SlotQueue()

    public init(limits: CacheLimits) { self.limits = limits }

    public mutating func recordHit(_ slot: Slot, evict: (Slot) -> Void) {}

    public mutating func evictNext() -> Slot? { queue.popFront() }

    /// The queue's oldest two.
    @inlinable @inline(__always)
    public func upcomingVictims() -> (soonest: Slot, next: Slot) { queue.oldestTwo }
}

extension FIFOPolicy: BoxedPolicy {
    final class CoreBox: PolicyCoreBox {
        let storage: UnsafeMutablePointer<CacheCore<FIFOPolicy>>
        init(storage: UnsafeMutablePointer<CacheCore<FIFOPolicy>>) { self.storage = storage }
        deinit { storage.deinitialize(count: 1).deallocate() }
    }
}
