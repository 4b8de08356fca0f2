/// The index an ``AtomicStore`` keeps for one fetch index of one concrete entity: the nodes
/// ordered by the compound key of the index's keyed elements (attributes and to-one
/// relationships, see ``IndexDefinition``).
final class AttributeIndex {
    /// The fetch index's name and keyed elements.
    let definition: IndexDefinition
    private(set) var tree: IndexTree
    /// How many entries hold NaN in an element: an order by the element is then not a total
    /// order (a sort leaves NaN where it finds it), so the index is not used for ordering.
    private(set) var nanCount = 0
    /// How many nodes hold a value of a kind the index does not cover (a store file with a
    /// wrong value): the index then misses objects, and the planner does not use it.
    private(set) var unindexedCount = 0

    /// Whether the index holds every node of its entity.
    var isComplete: Bool { unindexedCount == 0 }

    /// The index of `definition` over `nodes` (all of one concrete entity), built in bulk: the
    /// keys are sorted once (see ``IndexExactBuild`` where it applies, else ``IndexBulkOrder``)
    /// and the leaves filled in order.
    convenience init(_ definition: IndexDefinition, nodes: [CacheNode]) {
        self.init(definition, nodes: IndexedNodes(nodes))
    }

    /// The index of `definition` over `nodes`, walked in place where the build allows.
    init(_ definition: IndexDefinition, nodes indexed: IndexedNodes) {
        self.definition = definition
        if let built = IndexExactBuild.build(definition, nodes: indexed) {
            tree = built.tree
            nanCount = built.nanCount
            unindexedCount = built.unindexedCount
            return
        }
        let nodes = indexed.array
        let width = definition.elements.count
        var columns = [[IndexKey]](repeating: [], count: width)
        var identities: [UInt64] = []
        // Each kept node retained here, in the nodes' order (while its memory is at hand), and
        // handed to its entry below without another retain: retaining in the index's order
        // would touch a million nodes at random, a cache miss each.
        var retained: [Unmanaged<CacheNode>] = []
        retained.reserveCapacity(nodes.count)
        for column in columns.indices { columns[column].reserveCapacity(nodes.count) }
        identities.reserveCapacity(nodes.count)
        for node in nodes {
            guard let keys = definition.keys(in: node.values) else {
                unindexedCount += 1
                continue
            }
            if Self.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
            columns[0].append(keys.first)
            for (column, key) in keys.rest.enumerated() { columns[column + 1].append(key) }
            identities.append(UInt64(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(node))))
            retained.append(Unmanaged.passRetained(node))
        }
        let order = identities.withUnsafeBufferPointer { identity in
            IndexBulkOrder.positions(ofColumns: columns, ties: identities, tieLess: { identity[$0] < identity[$1] })
        }
        // `order` is a permutation of the kept positions: each retain is taken over exactly once.
        // Constants from here: the fill's closures read them without exclusivity checks.
        let (keyColumns, retainedNodes) = (columns, retained)
        tree = IndexTree(count: order.count, key: { keyColumns[0][order[$0]] },
                         rest: { place in width == 1 ? [] : (1..<width).map { keyColumns[$0][order[place]] } },
                         retainedNode: { retainedNodes[order[$0]] })
    }

    static func holdsNaN(_ first: IndexKey, _ rest: [IndexKey]) -> Bool {
        if case .nan = first { return true }
        return rest.contains { if case .nan = $0 { true } else { false } }
    }

    func insert(_ node: CacheNode) {
        if let entry = entry(of: node) { tree.insert(entry) }
    }

    /// Inserts nodes at once (a save's inserted nodes): as inserting them one at a time, with
    /// the searches for their leaves side by side (see ``IndexTree/insert(contentsOf:)``).
    func insert(contentsOf nodes: [CacheNode]) {
        tree.insert(contentsOf: nodes.compactMap(entry(of:)))
    }

    /// The entry of a node about to be inserted, counted among the NaN or unindexed ones; nil
    /// when a value of the node is of a kind the index does not cover.
    private func entry(of node: CacheNode) -> IndexEntry? {
        guard let keys = definition.keys(in: node.values) else {
            unindexedCount += 1
            return nil
        }
        if Self.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
        return IndexEntry(key: keys.first, rest: keys.rest, node: node)
    }

    /// Removes a node that held `values`.
    func remove(_ node: CacheNode, values: [Value]) {
        guard let keys = definition.keys(in: values) else {
            unindexedCount -= 1
            return
        }
        if tree.remove(keys.first, keys.rest, node), Self.holdsNaN(keys.first, keys.rest) { nanCount -= 1 }
    }

    /// Moves a node whose values changed from `old`.
    func update(_ node: CacheNode, from old: [Value]) {
        if definition.elements.allSatisfy({ element in
            guard element.propertyIndex < old.count, element.propertyIndex < node.values.count else { return false }
            return Self.sameKey(old[element.propertyIndex], node.values[element.propertyIndex], element)
        }) { return }
        remove(node, values: old)
        insert(node)
    }

    /// Whether two values make the same key exactly (1 and 1.0 compare equal, but the entry
    /// holds the first one's key: move it anyway).
    private static func sameKey(_ a: Value, _ b: Value, _ element: IndexedElement) -> Bool {
        switch (a, b) {
        case (.int, .int), (.double, .double), (.bool, .bool), (.string, .string), (.date, .date), (.null, .null), (.object, .object): break
        default: return false
        }
        guard let x = element.key(of: a), let y = element.key(of: b) else { return false }
        return x.rank == y.rank && IndexKey.order(x, y) == 0
    }
}

extension AttributeIndex: PlannableIndex {
    var name: String { definition.name }
    var elements: [IndexedElement] { definition.elements }

    func walk(_ range: EntryRange?, backwards: Bool, _ body: (IndexKey, [IndexKey], CacheNode) throws -> Bool) rethrows {
        let positions = range.map { $0.positions(in: tree) } ?? tree.startPosition..<tree.endPosition
        try tree.walk(positions, backwards: backwards) { try body($0.key, $0.rest, $0.node) }
    }
}
