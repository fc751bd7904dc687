import Foundation
import Synchronization

/// The peer users would pick: Nuke's memory cache (`Cache` in Sources/Nuke/Caching/Cache.swift)
/// as it ships in Nuke 13.2.0 (August 2026), written here from a reading of that source, since
/// Nuke does not build on Linux. What it does, kept here:
/// - a dictionary from key to a node of a doubly linked list of class nodes, one heap node per
///   new key (an update reuses its node);
/// - one unfair lock around everything (`Mutex` here: a futex, as `os_unfair_lock` is);
/// - a hit sets the node's reference bit (CLOCK, second chance) instead of moving the node, after
///   checking its expiry (a stored 0 when there is no time to live, so no clock is read);
/// - a new entry goes last, unreferenced; an entry costing 10 % of the cost limit or more is refused;
/// - over the cost or the count limit, the sweep takes the first node: referenced, it loses its bit
///   and goes last; not, it is evicted.
/// Memory warnings and the background trim are left out: no stream here sends them.
final class NukeCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private final class Node {
        let key: Key
        var value: Value
        var cost: Int
        let expiration: TimeInterval
        var referenced = false
        var previous: Node?
        var next: Node?

        init(key: Key, value: Value, cost: Int, expiration: TimeInterval) {
            self.key = key
            self.value = value
            self.cost = cost
            self.expiration = expiration
        }

        var isExpired: Bool { expiration != 0 && expiration < Date.timeIntervalSinceReferenceDate }
    }

    private let lock = Mutex(())
    private var map: [Key: Node] = [:]
    private var first: Node?
    private var last: Node?
    private var totalCost = 0
    let costLimit: Int
    let countLimit: Int
    /// `entryCostLimit` 0.1 of the cost limit, Nuke's default.
    private let entryMaxCost: Int

    init(costLimit: Int = .max, countLimit: Int = .max) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        let product = 0.1 * Double(costLimit)
        entryMaxCost = product >= Double(Int.max) ? .max : Int(product)
    }

    deinit {
        // As Nuke's list does: unlinked one by one, so no release recurses down the list.
        var node = first
        while let next = node?.next {
            node?.next = nil
            next.previous = nil
            node = next
        }
    }

    func value(forKey key: Key) -> Value? {
        lock.withLock { _ in
            guard let node = map[key] else { return nil }
            guard !node.isExpired else {
                remove(node)
                return nil
            }
            if !node.referenced { node.referenced = true }
            return node.value
        }
    }

    func set(_ value: Value, forKey key: Key, cost: Int = 0) {
        lock.withLock { _ in
            guard cost < entryMaxCost else { return }
            if let existing = map[key] {
                totalCost -= existing.cost
                existing.value = value
                existing.cost = cost
                existing.referenced = true
            } else {
                let node = Node(key: key, value: value, cost: cost, expiration: 0)
                map[key] = node
                append(node)
            }
            totalCost += cost
            guard totalCost > costLimit || map.count > countLimit else { return }
            while totalCost > costLimit || map.count > countLimit, let node = first {
                if node.referenced {
                    node.referenced = false
                    moveToLast(node)
                } else {
                    remove(node)
                }
            }
        }
    }

    private func append(_ node: Node) {
        if let last {
            last.next = node
            node.previous = last
        } else {
            first = node
        }
        last = node
    }

    private func moveToLast(_ node: Node) {
        guard node !== last else { return }
        let next = node.next
        if let previous = node.previous { previous.next = next } else { first = next }
        next?.previous = node.previous
        node.previous = last
        node.next = nil
        last?.next = node
        last = node
    }

    private func remove(_ node: Node) {
        node.next?.previous = node.previous
        node.previous?.next = node.next
        if node === last { last = node.previous }
        if node === first { first = node.next }
        node.next = nil
        node.previous = nil
        map[node.key] = nil
        totalCost -= node.cost
    }
}
