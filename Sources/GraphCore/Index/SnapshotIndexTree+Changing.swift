/// Changing a ``SnapshotIndexTree``: in place where the tree holds the only reference to a
/// node, copying a node first where another tree holds it too (copy on write, node by node).
///
/// A change walks down from the root with each node in an `inout` place of its parent (the
/// root taken out of the tree meanwhile), so that `isKnownUniquelyReferenced` counts only the
/// references of other trees: a store's own indexes change in place, and a server's writer
/// copies a node that its last published state shares once, then changes the copy in place for
/// the rest of the commit. A copy shares its arrays with the node it copied until it changes
/// them, so a child of a copied node is held twice and copied in turn when the change reaches
/// it: the path is copied, the rest of the tree shared.
extension SnapshotIndexTree {
    /// Adds `entry` (which the tree must not hold).
    mutating func insert(_ entry: SnapshotIndexEntry) {
        count += 1
        guard var node = root else {
            root = Node.leaf([entry])
            return
        }
        root = nil  // the tree's reference out of the count: the node is unique unless shared
        let right = Self.insert(entry, into: &node)
        root = right.map { Node.inner([node, $0]) } ?? node
    }

    /// Adds `entries`, sorted by ``SnapshotIndexEntry/order(_:_:)`` and none of them in the
    /// tree, in one pass: each node takes its share of them at once, and a node that grows past
    /// its capacity is cut into as few nodes as hold them. Ends with the entries that inserting
    /// them one at a time gives (the nodes may be cut elsewhere).
    mutating func insert(sorted entries: [SnapshotIndexEntry]) {
        guard entries.count > 1 else {
            for entry in entries { insert(entry) }
            return
        }
        guard var node = root else {
            self = SnapshotIndexTree(sorted: entries)
            return
        }
        count += entries.count
        root = nil
        var level = Self.insert(entries[...], into: &node)
        guard !level.isEmpty else {
            root = node
            return
        }
        level.insert(node, at: 0)
        while level.count > 1 { level = Self.cut(level, capacity: Self.fanout).map(Node.inner) }
        root = level.first
    }

    /// Removes `entry`; false when the tree does not hold it.
    @discardableResult
    mutating func remove(_ entry: SnapshotIndexEntry) -> Bool {
        guard var node = root else { return false }
        root = nil
        let outcome = Self.remove(entry, from: &node)
        switch outcome {
        case .missing:
            root = node
            return false
        case .emptied:
            root = nil
        case .removed:
            // An inner root of one child gives way to the child: the depth shrinks with the tree.
            while !node.isLeaf, node.children.count == 1 { node = node.children[0] }
            root = node
        }
        count -= 1
        return true
    }

    // MARK: - The walks down

    /// Makes `node` one that only this tree holds: itself when it is, else a copy.
    private static func own(_ node: inout Node) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
    }

    /// Adds `entry` under `node`; the new node to its right when it split.
    private static func insert(_ entry: SnapshotIndexEntry, into node: inout Node) -> Node? {
        own(&node)
        // The first element after the entry; past the end, the last one.
        let position = node.partition { SnapshotIndexEntry.order($0, entry) > 0 }
        if node.isLeaf {
            node.entries.insert(entry, at: position)
            if position == node.entries.count - 1 { node.last = entry }
            guard node.entries.count > leafCapacity else { return nil }
            let half = node.entries.count / 2
            let right = Node.leaf(Array(node.entries[half...]))
            node.entries.removeSubrange(half...)
            node.last = node.entries.last
            return right
        }
        let at = min(position, node.children.count - 1)
        if let right = insert(entry, into: &node.children[at]) { node.children.insert(right, at: at + 1) }
        if at + 2 >= node.children.count { node.last = node.children[node.children.count - 1].last }
        guard node.children.count > fanout else { return nil }
        let half = node.children.count / 2
        let right = Node.inner(Array(node.children[half...]))
        node.children.removeSubrange(half...)
        node.last = node.children[half - 1].last
        return right
    }

    /// Adds `batch` (sorted, not empty) under `node`; the new nodes to its right, in order,
    /// when it grew past its capacity.
    private static func insert(_ batch: ArraySlice<SnapshotIndexEntry>, into node: inout Node) -> [Node] {
        if batch.count == 1, let entry = batch.first { return insert(entry, into: &node).map { [$0] } ?? [] }
        own(&node)
        if node.isLeaf {
            let merged = merge(node.entries, batch)
            guard merged.count > leafCapacity else {
                node.entries = merged
                node.last = merged.last
                return []
            }
            var pieces = cut(merged, capacity: leafCapacity)
            node.entries = pieces.removeFirst()
            node.last = node.entries.last
            return pieces.map(Node.leaf)
        }
        // Each child's share: the entries before its last entry and after the child before's;
        // the entries after every child's last go to the last child.
        var shares: [(child: Int, entries: Range<Int>)] = []
        var start = batch.startIndex
        while start < batch.endIndex {
            let first = batch[start]
            let child = min(node.partition { SnapshotIndexEntry.order($0, first) > 0 }, node.children.count - 1)
            var end = batch.endIndex
            if child < node.children.count - 1, let last = node.children[child].last {
                end = binarySearch(batch[start...]) { SnapshotIndexEntry.order($0, last) > 0 }
            }
            // At least the first entry: keys without a consistent order (Swift's `<` finds the
            // string "e\u{301}" neither before nor after "é0") can make the search find none,
            // and the loop would never end.
            end = max(end, start + 1)
            shares.append((child, start..<end))
            start = end
        }
        // From the last share to the first, so that the children a share adds leave the places
        // of the shares before it as they were.
        for share in shares.reversed() {
            let rights = insert(batch[share.entries], into: &node.children[share.child])
            node.children.insert(contentsOf: rights, at: share.child + 1)
        }
        guard node.children.count > fanout else {
            node.last = node.children[node.children.count - 1].last
            return []
        }
        var pieces = cut(node.children, capacity: fanout)
        node.children = pieces.removeFirst()
        node.last = node.children[node.children.count - 1].last
        return pieces.map(Node.inner)
    }

    /// What a removal did to a node.
    private enum Removal {
        /// The entry is not under the node (which may be a copy of the node it was).
        case missing
        /// The node held only the entry: its parent drops it.
        case emptied
        /// The entry is gone from the node.
        case removed
    }

    private static func remove(_ entry: SnapshotIndexEntry, from node: inout Node) -> Removal {
        // The first element not before the entry: where it is, if anywhere.
        let position = node.partition { SnapshotIndexEntry.order($0, entry) >= 0 }
        guard position < node.width else { return .missing }
        if node.isLeaf {
            guard SnapshotIndexEntry.order(node.entries[position], entry) == 0 else { return .missing }
            guard node.entries.count > 1 else { return .emptied }
            own(&node)
            node.entries.remove(at: position)
            if position == node.entries.count { node.last = node.entries.last }
            return .removed
        }
        own(&node)
        switch remove(entry, from: &node.children[position]) {
        case .missing:
            return .missing
        case .emptied:
            guard node.children.count > 1 else { return .emptied }
            node.children.remove(at: position)
        case .removed:
            break
        }
        if position + 1 >= node.children.count { node.last = node.children[node.children.count - 1].last }
        return .removed
    }

    // MARK: - Helpers

    /// The entries of `a` and `b` (each sorted, none in both) in order.
    private static func merge(_ a: [SnapshotIndexEntry], _ b: ArraySlice<SnapshotIndexEntry>) -> [SnapshotIndexEntry] {
        var merged: [SnapshotIndexEntry] = []
        merged.reserveCapacity(a.count + b.count)
        var i = a.startIndex, j = b.startIndex
        while i < a.endIndex, j < b.endIndex {
            if SnapshotIndexEntry.order(a[i], b[j]) < 0 {
                merged.append(a[i])
                i += 1
            } else {
                merged.append(b[j])
                j += 1
            }
        }
        merged.append(contentsOf: a[i...])
        merged.append(contentsOf: b[j...])
        return merged
    }

    /// `elements` cut into as few pieces of at most `capacity` as hold them, of about equal
    /// length (each at least half full when there are more than `capacity`).
    private static func cut<Element>(_ elements: [Element], capacity: Int) -> [[Element]] {
        let pieces = (elements.count + capacity - 1) / capacity
        guard pieces > 1 else { return [elements] }
        return (0..<pieces).map { piece in
            Array(elements[(elements.count * piece / pieces)..<(elements.count * (piece + 1) / pieces)])
        }
    }

    /// The first index of `slice` whose entry satisfies `isAfter` (false for a prefix of the
    /// entries, true for the rest); the end when none does.
    private static func binarySearch(_ slice: ArraySlice<SnapshotIndexEntry>, _ isAfter: (SnapshotIndexEntry) -> Bool) -> Int {
        var low = slice.startIndex, high = slice.endIndex
        while low < high {
            let mid = low + (high - low) / 2
            if isAfter(slice[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
