/// The nodes of one concrete entity that an index is built from, walked where they are (a
/// store's table) rather than copied into an array first: a copy retains each of a million
/// nodes once more, on one thread, before the indexes are built side by side.
///
/// Builds of the same nodes on different threads walk them from opposite ends: each walk
/// retains and releases the nodes it reads, and two walks in step would pass the nodes' memory
/// from core to core all the way.
struct IndexedNodes {
    let count: Int
    /// Calls its second argument with every node, in no particular order; when the first is
    /// true, in the opposite order.
    let walk: (Bool, (CacheNode) -> Void) -> Void
    /// Whether ``forEach(_:)`` walks backwards.
    var backwards = false

    init(count: Int, walk: @escaping (Bool, (CacheNode) -> Void) -> Void) {
        self.count = count
        self.walk = walk
    }

    init(_ nodes: [CacheNode]) {
        self.init(count: nodes.count) { backwards, body in
            if backwards {
                for node in nodes.reversed() { body(node) }
            } else {
                for node in nodes { body(node) }
            }
        }
    }

    /// Calls `body` with every node.
    func forEach(_ body: (CacheNode) -> Void) {
        walk(backwards, body)
    }

    /// The nodes as an array (for a build that takes them by position).
    var array: [CacheNode] {
        var nodes: [CacheNode] = []
        nodes.reserveCapacity(count)
        forEach { nodes.append($0) }
        return nodes
    }
}
