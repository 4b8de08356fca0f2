import Foundation

/// The keys one index takes from the nodes of its entity, collected before the index is
/// sorted and filled (see ``AttributeIndex/init(_:)``): a column of keys per keyed element and
/// the kept nodes, each retained once for the entry it will be, in the order of their
/// identities.
struct IndexColumns {
    let definition: IndexDefinition
    /// `columns[e][p]`: element `e`'s key of the `p`th kept node.
    var columns: [[IndexKey]]
    /// The kept nodes, each held once for its entry, in ascending identity (so a position's
    /// order is its node's identity order, the order of entries of equal keys).
    let nodes: MovableNodes
    var nanCount = 0
    var unindexedCount = 0

    init(_ definition: IndexDefinition, capacity: Int) {
        self.definition = definition
        columns = Array(repeating: [], count: definition.elements.count)
        for column in columns.indices { columns[column].reserveCapacity(capacity) }
        nodes = MovableNodes(capacity: capacity)
    }

    /// The columns of every index in `definitions` over `nodes` (all of one concrete entity), in
    /// one pass that reads each node's values once for all of them. The nodes are visited in
    /// ascending identity: the tie order every index needs, and the order of their memory
    /// (an allocator hands out nodes mostly in ascending addresses), where a table's order
    /// is a hash's and touches a million nodes at random, twice as many times as indexes.
    /// With as many nodes as ``IndexBuildJobs/parallelThreshold``, the nodes are split in
    /// ranges of identity collected side by side, then joined.
    static func collect(_ definitions: [IndexDefinition], nodes: [CacheNode]) -> [IndexColumns] {
        var items = nodes.indices.map { RadixItem(high: UInt64(UInt(bitPattern: ObjectIdentifier(nodes[$0]))), low: 0, position: $0) }
        RadixItem.sort(&items)
        let parts = max(1, min(ProcessInfo.processInfo.activeProcessorCount, items.count / max(1, IndexBuildJobs.parallelThreshold / 2)))
        let ranges = (0..<parts).map { part in (items.count / parts * part)..<(part == parts - 1 ? items.count : items.count / parts * (part + 1)) }
        let collected = IndexBuildJobs.map(ranges, size: \.count) { range in
            collect(definitions, nodes: nodes, visiting: items[range])
        }
        guard collected.count > 1 else { return collected.first ?? definitions.map { IndexColumns($0, capacity: 0) } }
        return definitions.indices.map { index in
            var joined = IndexColumns(definitions[index], capacity: nodes.count)
            for part in collected {
                let columns = part[index]
                for column in joined.columns.indices { joined.columns[column].append(contentsOf: columns.columns[column]) }
                joined.nodes.append(movingFrom: columns.nodes)
                joined.nanCount += columns.nanCount
                joined.unindexedCount += columns.unindexedCount
            }
            return joined
        }
    }

    /// The columns of the nodes at the positions of `items`, in their order.
    private static func collect(_ definitions: [IndexDefinition], nodes: [CacheNode], visiting items: ArraySlice<RadixItem>) -> [IndexColumns] {
        var collected = definitions.map { IndexColumns($0, capacity: items.count) }
        nodes.withUnsafeBufferPointer { nodes in
            for item in items {
                let node = nodes[item.position]
                let values = node.values
                for index in collected.indices {
                    guard let keys = collected[index].definition.keys(in: values) else {
                        collected[index].unindexedCount += 1
                        continue
                    }
                    if AttributeIndex.holdsNaN(keys.first, keys.rest) { collected[index].nanCount += 1 }
                    collected[index].columns[0].append(keys.first)
                    for (column, key) in keys.rest.enumerated() { collected[index].columns[column + 1].append(key) }
                    collected[index].nodes.append(node)
                }
            }
        }
        return collected
    }
}
