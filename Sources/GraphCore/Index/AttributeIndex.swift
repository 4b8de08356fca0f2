/// The index an ``AtomicStore`` keeps for one fetch index of one concrete entity: the nodes
/// ordered by the value of the index's first element (an attribute).
///
/// Compound indexes are kept on their first element; the planner uses them for terms and
/// orders on that element (the other elements are checked by the predicate, as on any
/// candidate).
final class AttributeIndex {
    /// The fetch index's name.
    let name: String
    /// The attribute the index orders by.
    let key: String
    /// The attribute's position in the entity's properties.
    let propertyIndex: Int
    /// How string keys are folded; empty for a plain index.
    let folding: Comparison.Options
    private(set) var tree: IndexTree
    /// How many entries hold NaN: an order by the attribute is then not a total order (a
    /// sort leaves NaN where it finds it), so the index is not used for ordering.
    private(set) var nanCount = 0
    /// How many nodes hold a value of a kind the index does not cover (a store file with a
    /// wrong value): the index then misses objects, and the planner does not use it.
    private(set) var unindexedCount = 0

    /// Whether the index holds every node of its entity.
    var isComplete: Bool { unindexedCount == 0 }

    /// The index of `attribute` over `nodes` (all of one concrete entity), built in bulk: the
    /// keys are sorted once (see ``IndexBulkOrder``) and the leaves filled in order.
    init(_ attribute: IndexedAttribute, nodes: [CacheNode]) {
        self.name = attribute.name
        self.key = attribute.key
        self.propertyIndex = attribute.propertyIndex
        self.folding = attribute.folding
        var keys: [IndexKey] = []
        var identities: [UInt] = []
        // Each kept node retained here, in the nodes' order (while its memory is at hand), and
        // handed to its entry below without another retain: retaining in the index's order
        // would touch a million nodes at random, a cache miss each.
        var retained: [Unmanaged<CacheNode>] = []
        retained.reserveCapacity(nodes.count)
        keys.reserveCapacity(nodes.count)
        identities.reserveCapacity(nodes.count)
        for node in nodes {
            guard propertyIndex < node.values.count, let key = attribute.key(of: node.values[propertyIndex]) else {
                unindexedCount += 1
                continue
            }
            if case .nan = key { nanCount += 1 }
            keys.append(key)
            identities.append(UInt(bitPattern: ObjectIdentifier(node)))
            retained.append(Unmanaged.passRetained(node))
        }
        let order = identities.withUnsafeBufferPointer { identity in
            IndexBulkOrder.positions(of: keys, ties: identities.map { UInt64($0) }, tieLess: { identity[$0] < identity[$1] })
        }
        // `order` is a permutation of the kept positions: each retain is taken over exactly once.
        tree = IndexTree(count: order.count) { IndexEntry(key: keys[order[$0]], node: retained[order[$0]].takeRetainedValue()) }
    }

    /// The key of a value in this index (strings folded as it says).
    private func indexKey(_ value: Value) -> IndexKey? {
        if !folding.isEmpty, case .string(let s) = value { return .string(StringFolding.fold(s, folding)) }
        return IndexKey(value)
    }

    func insert(_ node: CacheNode) {
        guard propertyIndex < node.values.count, let key = indexKey(node.values[propertyIndex]) else {
            unindexedCount += 1
            return
        }
        if case .nan = key { nanCount += 1 }
        tree.insert(IndexEntry(key: key, node: node))
    }

    func remove(_ node: CacheNode, value: Value) {
        guard let key = indexKey(value) else {
            unindexedCount -= 1
            return
        }
        if tree.remove(key, node), case .nan = key { nanCount -= 1 }
    }

    /// Moves a node whose value changed from `old`.
    func update(_ node: CacheNode, from old: Value) {
        let new = propertyIndex < node.values.count ? node.values[propertyIndex] : .null
        if let a = indexKey(old), let b = indexKey(new), a.rank == b.rank, IndexKey.order(a, b) == 0,
           Self.sameKind(old, new) { return }
        remove(node, value: old)
        insert(node)
    }

    /// Whether two values make the same key exactly (1 and 1.0 compare equal, but the entry
    /// holds the first one's key: move it anyway).
    private static func sameKind(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.int, .int), (.double, .double), (.bool, .bool), (.string, .string), (.date, .date), (.null, .null): true
        default: false
        }
    }
}

extension AttributeIndex: PlannableIndex {
    func walk(_ range: KeyRange?, backwards: Bool, _ body: (CacheNode) throws -> Bool) rethrows {
        let positions = range.map { $0.positions(in: tree) } ?? tree.startPosition..<tree.endPosition
        try tree.walk(positions, backwards: backwards) { try body($0.node) }
    }
}
