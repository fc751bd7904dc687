extension LIRSPolicy {
    // Nodes and their three lists: S (the stack), Q (the queue of resident HIR entries)
    // and NH (S's non-resident entries, oldest first).

    enum ListKind { case stack, queue, history }

    struct Link {
        var previous = NodeList.none
        var next = NodeList.none
    }

    struct Node {
        var links = (Link(), Link(), Link())
        var size = 0
        var cost = 0
        var fingerprint: UInt64 = 0
        var slot: Slot = -1
        var isLIR = false
        /// Whether S's copy is resident (libCacheSim's `in_cache` on S's object).
        var residentInStack = false
        var inStack = false
        var inQueue = false
        var inHistory = false
    }

    /// One list: oldest at the front, newest at the back.
    struct NodeList {
        static let none: Int32 = -1
        var front = NodeList.none
        var back = NodeList.none
        /// Total size of its nodes in the measure.
        var size = 0
        var isEmpty: Bool { front == Self.none }
        var oldest: Int32? { front == Self.none ? nil : front }
        var newest: Int32? { back == Self.none ? nil : back }
    }

    mutating func makeNode(fingerprint: UInt64, size: Int) -> Int32 {
        var node = Node()
        node.fingerprint = fingerprint
        node.size = size
        if let reused = freeNodes.popLast() {
            nodes[Int(reused)] = node
            return reused
        }
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    mutating func release(_ node: Int32) {
        nodes[Int(node)] = Node()
        freeNodes.append(node)
    }

    func link(_ node: Int32, _ kind: ListKind) -> Link {
        switch kind {
        case .stack: nodes[Int(node)].links.0
        case .queue: nodes[Int(node)].links.1
        case .history: nodes[Int(node)].links.2
        }
    }

    mutating func setLink(_ node: Int32, _ kind: ListKind, _ value: Link) {
        switch kind {
        case .stack: nodes[Int(node)].links.0 = value
        case .queue: nodes[Int(node)].links.1 = value
        case .history: nodes[Int(node)].links.2 = value
        }
    }

    mutating func setMembership(_ node: Int32, _ kind: ListKind, _ member: Bool) {
        switch kind {
        case .stack: nodes[Int(node)].inStack = member
        case .queue: nodes[Int(node)].inQueue = member
        case .history: nodes[Int(node)].inHistory = member
        }
    }

    mutating func withList<Result>(_ kind: ListKind, _ body: (inout NodeList) -> Result) -> Result {
        switch kind {
        case .stack: body(&stack)
        case .queue: body(&queue)
        case .history: body(&history)
        }
    }

    mutating func append(_ node: Int32, to kind: ListKind) {
        let back = withList(kind) { $0.back }
        setLink(node, kind, Link(previous: back, next: NodeList.none))
        if back != NodeList.none {
            var previous = link(back, kind)
            previous.next = node
            setLink(back, kind, previous)
        }
        let size = nodes[Int(node)].size
        withList(kind) { list in
            if list.front == NodeList.none { list.front = node }
            list.back = node
            list.size += size
        }
        setMembership(node, kind, true)
    }

    mutating func unlink(_ node: Int32, from kind: ListKind) {
        let own = link(node, kind)
        if own.previous != NodeList.none {
            var previous = link(own.previous, kind)
            previous.next = own.next
            setLink(own.previous, kind, previous)
        }
        if own.next != NodeList.none {
            var next = link(own.next, kind)
            next.previous = own.previous
            setLink(own.next, kind, next)
        }
        let size = nodes[Int(node)].size
        withList(kind) { list in
            if list.front == node { list.front = own.next }
            if list.back == node { list.back = own.previous }
            list.size -= size
        }
        setLink(node, kind, Link())
        setMembership(node, kind, false)
    }

    mutating func moveToNewest(_ node: Int32, in kind: ListKind) {
        guard withList(kind, { $0.back }) != node else { return }
        unlink(node, from: kind)
        append(node, to: kind)
    }
}
