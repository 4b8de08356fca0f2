/// The bulk build of a one-element index whose keys are all integers, or all strings of at
/// most 16 ASCII bytes without NUL, besides nil (and NaN among integers): keys whose radix bits
/// are the whole key (``RadixItem/bits(of:)``).
///
/// The radix sort then carries each entry's node with its bits, and the leaves are filled in
/// order from the sorted items alone, each key made again from its bits. The general build
/// (``IndexBulkOrder``) sorts positions and then gathers each key and node from arrays in the
/// nodes' order: two reads at random per entry, most of them cache misses on a large store,
/// and two more arrays as large as the index to fill first.
///
/// Entries of equal keys are in the order of their nodes' identities, as in every index: each
/// run of equal bits the sort leaves is sorted by node. The runs are short unless the index
/// has few distinct keys, and then the standard sort merges the few increasing runs of
/// addresses a loader leaves its nodes in.
enum IndexExactBuild {
    struct Built {
        let tree: IndexTree
        let nanCount: Int
        let unindexedCount: Int
    }

    /// A key's bits and the node of its entry, retained for the entry.
    private struct NodeItem: RadixSortable {
        let high: UInt64
        let low: UInt64
        let node: Unmanaged<CacheNode>
    }

    /// The kinds of key whose bits this build turns back into keys.
    private enum Kind { case int, string }

    /// The index of `definition` over `nodes`, or nil when it has more than one element or a key
    /// that is not exact (then the caller builds it the general way; nothing is kept).
    static func build(_ definition: IndexDefinition, nodes: IndexedNodes) -> Built? {
        guard definition.elements.count == 1, let element = definition.elements.first else { return nil }
        // Each kept node retained here, while its memory is at hand, and handed to its entry.
        let buffer = HugePageBuffer<NodeItem>(capacity: nodes.count)
        defer { buffer.deallocate() }
        var itemCount = 0
        var nulls: [Unmanaged<CacheNode>] = []
        var nans: [Unmanaged<CacheNode>] = []
        var unindexed = 0
        var kind: Kind?
        var isExact = true
        nodes.forEach { node in
            guard isExact else { return }
            guard let key = element.key(in: node.values) else {
                unindexed += 1
                return
            }
            let keyKind: Kind
            switch key {
            case .null:
                nulls.append(.passRetained(node))
                return
            case .nan:
                nans.append(.passRetained(node))
                return
            case .int: keyKind = .int
            case .string: keyKind = .string
            default:
                isExact = false
                return
            }
            guard kind == nil || kind == keyKind, let bits = RadixItem.bits(of: key), bits.isWhole else {
                isExact = false
                return
            }
            kind = keyKind
            guard itemCount < buffer.elements.count, let base = buffer.elements.baseAddress else {
                isExact = false  // more nodes than counted: a table changed while walked
                return
            }
            (base + itemCount).initialize(to: NodeItem(high: bits.high, low: bits.low, node: .passRetained(node)))
            itemCount += 1
        }
        let items = UnsafeMutableBufferPointer(rebasing: buffer.elements[0..<itemCount])
        // NaN sorts between numbers and strings: only an index of numbers takes it after them.
        if kind == .string && !nans.isEmpty { isExact = false }
        guard isExact else {
            for item in items { item.node.release() }
            for node in nulls + nans { node.release() }
            return nil
        }
        RadixItem.sort(items)
        orderTies(items)
        nulls.sort { $0.toOpaque() < $1.toOpaque() }
        nans.sort { $0.toOpaque() < $1.toOpaque() }
        // Constants from here: the fill's closures read them without exclusivity checks.
        let sorted = UnsafeBufferPointer(items), nullNodes = nulls, nanNodes = nans, isInteger = kind == .int
        let sortedEnd = nullNodes.count + sorted.count
        let tree = IndexTree(count: sortedEnd + nanNodes.count, key: { place in
            if place < nullNodes.count { return .null }
            if place >= sortedEnd { return .nan }
            let item = sorted[place - nullNodes.count]
            return isInteger ? .int(Int64(bitPattern: item.high ^ (1 << 63))) : .string(string(item))
        }, rest: { _ in [] }, retainedNode: { place in
            if place < nullNodes.count { return nullNodes[place] }
            if place >= sortedEnd { return nanNodes[place - sortedEnd] }
            return sorted[place - nullNodes.count].node
        })
        return Built(tree: tree, nanCount: nanNodes.count, unindexedCount: unindexed)
    }

    /// Orders each run of items with equal bits (equal keys) by their nodes' identities.
    private static func orderTies(_ items: UnsafeMutableBufferPointer<NodeItem>) {
        var start = 0
        while start < items.count {
            var end = start + 1
            while end < items.count, items[end].high == items[start].high, items[end].low == items[start].low { end += 1 }
            if end - start > 1 {
                var run = UnsafeMutableBufferPointer(rebasing: items[start..<end])
                run.sort { $0.node.toOpaque() < $1.node.toOpaque() }
            }
            start = end
        }
    }

    /// The string whose bytes the item's bits are: at most 16 ASCII bytes, zeros after them.
    private static func string(_ item: NodeItem) -> String {
        var bytes = (item.high.bigEndian, item.low.bigEndian)
        return withUnsafeBytes(of: &bytes) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
