import Synchronization

/// The peer the memory tier is held against: a least-recently-used cache built the textbook
/// way, as Nuke's `Cache` is (which does not build on Linux): a dictionary from key to a node
/// of a doubly linked list, most recent at the head, one lock around both, a cost and a count
/// limit that evict from the tail.
final class TextbookLRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Node {
        let key: Key
        var value: Value
        var cost: Int
        var previous: Node?
        var next: Node?

        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    private struct State {
        var nodes: [Key: Node] = [:]
        var head: Node?
        var tail: Node?
        var totalCost = 0

        mutating func unlink(_ node: Node) {
            node.previous?.next = node.next
            node.next?.previous = node.previous
            if head === node { head = node.next }
            if tail === node { tail = node.previous }
            node.previous = nil
            node.next = nil
        }

        mutating func pushFront(_ node: Node) {
            node.next = head
            head?.previous = node
            head = node
            if tail == nil { tail = node }
        }
    }

    private let state = Mutex(State())
    let costLimit: Int
    let countLimit: Int

    init(costLimit: Int = .max, countLimit: Int = .max) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    func value(for key: Key) -> Value? {
        state.withLock { state in
            guard let node = state.nodes[key] else { return nil }
            state.unlink(node)
            state.pushFront(node)
            return node.value
        }
    }

    func set(_ value: Value, for key: Key, cost: Int = 1) {
        state.withLock { state in
            if let old = state.nodes[key] {
                state.totalCost -= old.cost
                state.unlink(old)
            }
            let node = Node(key: key, value: value, cost: cost)
            state.nodes[key] = node
            state.pushFront(node)
            state.totalCost += cost
            while state.totalCost > costLimit || state.nodes.count > countLimit, let last = state.tail {
                state.unlink(last)
                state.nodes[last.key] = nil
                state.totalCost -= last.cost
            }
        }
    }
}
