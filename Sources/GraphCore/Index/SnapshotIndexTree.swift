/// One entry of a ``SnapshotIndexTree``: an object's compound key (its first element's key
/// and the others') and its reference. An index covers one concrete entity of one store, so
/// the reference names the object; a reader finds its snapshot in the state the index
/// belongs to (``ResolvedSnapshotIndex``).
///
/// An entry holds no snapshot, so that a change that keeps an object's keys (another
/// attribute changed) leaves the index as it was, and a node copied on a change copies plain
/// keys and references: nothing to retain for an integer key of an object with an integer
/// reference.
struct SnapshotIndexEntry: Sendable {
    let key: IndexKey
    /// The keys of the elements after the first (none for an index of one element).
    let rest: [IndexKey]
    let reference: ReferenceObject

    /// The order of entries: by compound key, ties by the object's reference (integers by
    /// value, then strings), so each object has one place and equal keys come in reference order.
    static func order(_ a: SnapshotIndexEntry, _ b: SnapshotIndexEntry) -> Int {
        let byKey = IndexKey.order(a.key, a.rest, b.key, b.rest)
        if byKey != 0 { return byKey }
        return referenceOrder(a.reference, b.reference)
    }

    /// Integer references by value, before string references by their text.
    static func referenceOrder(_ a: ObjectID, _ b: ObjectID) -> Int {
        referenceOrder(a.referenceObject, b.referenceObject)
    }

    /// Integer references by value, before string references by their text.
    static func referenceOrder(_ a: ReferenceObject, _ b: ReferenceObject) -> Int {
        switch (a, b) {
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.int, .string): return -1
        case (.string, .int): return 1
        case (.string(let x), .string(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        }
    }
}

/// Index entries in order, in a persistent B+-tree: a tree is a value, and a copy of it (a
/// server's published read state, a reader's) never sees a change made to another. A change
/// changes in place every node on its path that only this tree holds
/// (`isKnownUniquelyReferenced`) and copies the ones it shares with another tree first (copy
/// on write, node by node): a store that holds the only tree changes O(log n) nodes in place,
/// and the writer of a server, whose nodes a published state shares, copies each node on its
/// paths once per state and changes the copies in place afterwards. See
/// `SnapshotIndexTree+Changing.swift`.
///
/// Removals leave nodes under-full rather than merging them: the depth never grows from
/// a removal, and a rebuild (at load) packs the nodes again.
///
/// An inner node keeps its children and its own last entry, not an array of its children's
/// last entries: a copy then copies, per inner node on its path, the children's references
/// and one entry, where an array of entries would copy every child's last entry. The search
/// in an inner node reads each probed child's last entry through the child.
///
/// Nodes are small because a copy's cost is its retains: copying a node retains every
/// child, or every entry's string keys and string references, and freeing the old path
/// releases them, each one a cache miss in a large store. When entries held snapshots and
/// every change copied its path, an update of an indexed attribute on 300,000 snapshots took
/// 35 µs into two indexes with leaves of 32 entries and 64 children, 31 µs with 16 and 32,
/// 23-26 µs with 8 and 16 (`GraphCoreBenchmarks indexes 300000`), while an indexed lookup
/// stayed at 11 µs.
struct SnapshotIndexTree: Sendable {
    /// The most children of an inner node.
    static let fanout = 16
    /// The most entries of a leaf (fewer than an inner node's children: an entry holds more
    /// references than a child).
    static let leafCapacity = 8

    /// A node: a leaf holds entries, an inner node children; each knows its last entry.
    ///
    /// Safe to share between threads although its fields change: a node is changed only
    /// through a reference that `isKnownUniquelyReferenced` found to be the only one (see
    /// `SnapshotIndexTree+Changing.swift`), so no other tree, and no other thread, can reach
    /// it while it changes; a node that another tree holds is copied first and never changed.
    final class Node: @unchecked Sendable {
        /// A leaf's entries (never empty in a tree); empty for an inner node.
        var entries: [SnapshotIndexEntry]
        /// An inner node's children (never empty); empty for a leaf.
        var children: [Node]
        /// The last entry of the node's last leaf.
        var last: SnapshotIndexEntry?

        private init(entries: [SnapshotIndexEntry], children: [Node], last: SnapshotIndexEntry?) {
            self.entries = entries
            self.children = children
            self.last = last
        }

        /// A node of another tree's node, to change: it shares the arrays until they change.
        func copy() -> Node {
            Node(entries: entries, children: children, last: last)
        }

        var isLeaf: Bool { children.isEmpty }

        static func leaf(_ entries: [SnapshotIndexEntry]) -> Node {
            Node(entries: entries, children: [], last: entries.last)
        }

        static func inner(_ children: [Node]) -> Node {
            Node(entries: [], children: children, last: children.last?.last)
        }

        /// How many entries (a leaf) or children (an inner node) the node has.
        var width: Int { isLeaf ? entries.count : children.count }

        /// The first position whose entry (a leaf) or child's last entry (an inner node)
        /// satisfies `isAfter`, which must be false for a prefix of them and true for the rest.
        /// The probed entry is lent, not copied: a copy would retain (and then release) its
        /// keys and its reference.
        func partition(_ isAfter: (borrowing SnapshotIndexEntry) -> Bool) -> Int {
            if isLeaf { return search { isAfter(entries[$0]) } }
            return search { position in
                // A child is never empty, so it has a last entry; were one missing, it would
                // count as before the searched place.
                switch children[position].last {
                case .some(let probe): isAfter(probe)
                case .none: false
                }
            }
        }

        /// ``partition(_:)`` for a search by key alone (a walk's range): only the probed
        /// entry's keys are read, so a probe retains at most those two.
        func partition(byKey isAfter: (IndexKey, [IndexKey]) -> Bool) -> Int {
            if isLeaf { return search { isAfter(entries[$0].key, entries[$0].rest) } }
            return search { position in
                guard let key = children[position].last?.key, let rest = children[position].last?.rest else { return false }
                return isAfter(key, rest)
            }
        }

        /// The binary search of the partitions: the first position of `0..<width` for which
        /// `isAfterAt` holds.
        private func search(_ isAfterAt: (Int) -> Bool) -> Int {
            var low = 0, high = width
            while low < high {
                let mid = (low + high) / 2
                if isAfterAt(mid) { high = mid } else { low = mid + 1 }
            }
            return low
        }
    }

    var root: Node?
    /// How many entries the tree holds.
    var count = 0

    /// An empty tree.
    init() {}

    /// A tree of `entries`, which must be sorted by ``SnapshotIndexEntry/order(_:_:)``: O(n).
    init(sorted entries: [SnapshotIndexEntry]) {
        self.init(count: entries.count) { entries[$0] }
    }

    /// A tree of `count` entries, `entry(i)` the `i`th in the order of
    /// ``SnapshotIndexEntry/order(_:_:)``, built bottom-up in O(n): the leaves in order, then
    /// each inner level over the one below.
    init(count: Int, entry: (Int) -> SnapshotIndexEntry) {
        self.count = count
        guard count > 0 else { return }
        // Nodes three quarters full: room for inserts before the first splits.
        let leafFill = Self.leafCapacity * 3 / 4, fill = Self.fanout * 3 / 4
        var level: [Node] = []
        level.reserveCapacity((count + leafFill - 1) / leafFill)
        for start in stride(from: 0, to: count, by: leafFill) {
            var entries: [SnapshotIndexEntry] = []
            entries.reserveCapacity(min(leafFill, count - start))
            for position in start..<min(start + leafFill, count) { entries.append(entry(position)) }
            level.append(Node.leaf(entries))
        }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: fill).map { start in
                Node.inner(Array(level[start..<min(start + fill, level.count)]))
            }
        }
        root = level.first
    }

    // MARK: - Reading

    /// Calls `body` with the entries in `range` (from lower to upper, or backwards), until it
    /// returns false.
    func walk(_ range: EntryRange?, backwards: Bool, _ body: (borrowing SnapshotIndexEntry) throws -> Bool) rethrows {
        guard let root else { return }
        if !backwards, let key = range?.firstKey {
            _ = try Self.walk(root, firstKey: key, body)
            return
        }
        let below: (IndexKey, [IndexKey]) -> Bool = range?.below ?? { _, _ in false }
        let above: (IndexKey, [IndexKey]) -> Bool = range?.above ?? { _, _ in false }
        if backwards {
            _ = try Self.walkBackwards(root, below: below, above: above, body)
        } else {
            _ = try Self.walkForwards(root, below: below, above: above, body)
        }
    }

    /// Calls `body` with the entries whose first element's key is `key`, in order, until it
    /// returns false: a lookup's walk, straight down to the first of them, comparing keys
    /// without the closures of a range.
    func walk(firstKey key: IndexKey, _ body: (borrowing SnapshotIndexEntry) throws -> Bool) rethrows {
        guard let root else { return }
        _ = try Self.walk(root, firstKey: key, body)
    }

    /// False once the walk is to stop (past the key, or `body` said so).
    private static func walk(_ node: Node, firstKey key: IndexKey, _ body: (borrowing SnapshotIndexEntry) throws -> Bool) rethrows -> Bool {
        let start = node.partition { IndexKey.order($0.key, key) >= 0 }
        if node.isLeaf {
            let entries = node.entries
            for position in start..<entries.count {
                guard IndexKey.order(entries[position].key, key) == 0, try body(entries[position]) else { return false }
            }
            return true
        }
        for child in node.children[start...] where try !walk(child, firstKey: key, body) { return false }
        return true
    }

    /// False once the walk is to stop (the range ended or `body` said so).
    private static func walkForwards(_ node: Node, below: (IndexKey, [IndexKey]) -> Bool, above: (IndexKey, [IndexKey]) -> Bool,
                                     _ body: (borrowing SnapshotIndexEntry) throws -> Bool) rethrows -> Bool {
        let start = node.partition(byKey: { !below($0, $1) })
        if node.isLeaf {
            let entries = node.entries
            for position in start..<entries.count {
                if above(entries[position].key, entries[position].rest) { return false }
                if try !body(entries[position]) { return false }
            }
            return true
        }
        for child in node.children[start...] {
            if try !walkForwards(child, below: below, above: above, body) { return false }
        }
        return true
    }

    private static func walkBackwards(_ node: Node, below: (IndexKey, [IndexKey]) -> Bool, above: (IndexKey, [IndexKey]) -> Bool,
                                      _ body: (borrowing SnapshotIndexEntry) throws -> Bool) rethrows -> Bool {
        let end = node.partition(byKey: above)
        if node.isLeaf {
            for entry in node.entries[..<end].reversed() {
                if below(entry.key, entry.rest) { return false }
                if try !body(entry) { return false }
            }
            return true
        }
        // The child holding the first entry past the range may hold entries in it.
        for child in node.children[..<min(end + 1, node.children.count)].reversed() {
            if try !walkBackwards(child, below: below, above: above, body) { return false }
        }
        return true
    }
}
