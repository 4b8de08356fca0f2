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

    init(_ attribute: IndexedAttribute, nodes: [CacheNode]) {
        self.name = attribute.name
        self.key = attribute.key
        self.propertyIndex = attribute.propertyIndex
        self.folding = attribute.folding
        var entries: [IndexEntry] = []
        entries.reserveCapacity(nodes.count)
        for node in nodes {
            guard propertyIndex < node.values.count, let key = attribute.key(of: node.values[propertyIndex]) else {
                unindexedCount += 1
                continue
            }
            if case .nan = key { nanCount += 1 }
            entries.append(IndexEntry(key: key, node: node))
        }
        tree = IndexTree(sorted: Self.sorted(entries))
    }

    /// The entries in order. Integer and string keys (with nil) are sorted as plain values,
    /// without going through ``IndexKey/order(_:_:)`` for each comparison: a fraction of the
    /// time on a million objects.
    private static func sorted(_ entries: [IndexEntry]) -> [IndexEntry] {
        var nulls: [IndexEntry] = []
        var integers: [(key: Int64, identity: UInt, position: Int)] = []
        var strings: [(key: String, identity: UInt, position: Int)] = []
        for (position, entry) in entries.enumerated() {
            let identity = entry.identity
            switch entry.key {
            case .null: nulls.append(entry)
            case .int(let i) where strings.isEmpty: integers.append((i, identity, position))
            case .string(let s) where integers.isEmpty: strings.append((s, identity, position))
            default: return entries.sorted { IndexEntry.order($0, $1) < 0 }
            }
        }
        nulls.sort { IndexEntry.order($0, $1) < 0 }
        if !integers.isEmpty {
            integers.sort { a, b in a.key < b.key || (a.key == b.key && a.identity < b.identity) }
            return nulls + integers.map { entries[$0.position] }
        }
        strings.sort { a, b in a.key < b.key || (a.key == b.key && a.identity < b.identity) }
        return nulls + strings.map { entries[$0.position] }
    }

    /// The indexes to keep for `entity`: each binary fetch index of it or an ancestor whose
    /// first element is an attribute of a covered type.
    static func make(for entity: EntityDescription, nodes: [CacheNode]) -> [AttributeIndex] {
        IndexedAttribute.all(of: entity).map { AttributeIndex($0, nodes: nodes) }
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
