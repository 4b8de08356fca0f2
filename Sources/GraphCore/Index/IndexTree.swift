/// One entry of an index: a node's compound key (its first element's key and the others')
/// and the node.
struct IndexEntry {
    let key: IndexKey
    /// The keys of the elements after the first (none for an index of one element).
    let rest: [IndexKey]
    let node: CacheNode

    /// The node's identity, which orders entries of equal keys.
    var identity: UInt { UInt(bitPattern: ObjectIdentifier(node)) }

    /// Whether this is the entry of `node`.
    func holds(_ node: CacheNode) -> Bool { self.node === node }

    /// The order of entries: by compound key, ties by the node's identity (so each entry has
    /// one place).
    static func order(_ a: IndexEntry, _ b: IndexEntry) -> Int {
        let byKey = IndexKey.order(a.key, a.rest, b.key, b.rest)
        if byKey != 0 { return byKey }
        let x = a.identity, y = b.identity
        return x < y ? -1 : (x == y ? 0 : 1)
    }
}

/// A position in an ``IndexTree``: a leaf and an offset in it.
struct IndexPosition: Comparable {
    var leaf: Int
    var offset: Int

    static func < (a: IndexPosition, b: IndexPosition) -> Bool {
        a.leaf < b.leaf || (a.leaf == b.leaf && a.offset < b.offset)
    }
}

/// Entries in order, kept in leaves of at most ``leafCapacity`` entries: a B+-tree of two
/// levels. An insert or removal finds its leaf by binary search over the leaves' last keys
/// (O(log n)) and moves at most one leaf's entries (O(leafCapacity)); a full leaf splits in
/// two. A sorted array would move half of a million entries per change; a deeper tree gains
/// nothing below tens of millions of entries. Built from sorted entries in O(n).
///
/// 256 entries (8 KB) a leaf: an insert shifts 2 KB on average, a leaf's search stays in a
/// few cache lines; 1,000,000 entries make 4,000 to 8,000 leaves, a search over them 13 steps.
///
/// The search for a leaf reads ``lasts``, each leaf's last entry in one contiguous array
/// (about 320 KB for a million entries, mostly in cache), not each probed leaf's buffer and its
/// last entry (two cache misses a step on a large tree).
struct IndexTree {
    static let leafCapacity = 256
    /// Room a new leaf gets beyond its entries: the first inserts into a leaf that a build or a
    /// split made need no new buffer (a bigger one, its page faults, a copy of the leaf).
    static let leafRoom = leafCapacity / 8
    // Set only here and in the batch insert (`IndexTree+Batch.swift`).
    var leaves: [[IndexEntry]] = []
    /// `lasts[l]` is the last entry of `leaves[l]` (a leaf is never empty): kept by every change.
    var lasts: [IndexEntry] = []
    /// `lastBits[l]` is the ``IndexSearchBits`` of `lasts[l]`'s key: the search for a leaf compares
    /// these 8 bytes a leaf first (62 KB for a million entries).
    var lastBits: [UInt64] = []
    var count = 0

    /// A tree of `entries`, which must be sorted by ``IndexEntry/order(_:_:)``.
    init(sorted entries: [IndexEntry]) {
        self.init(count: entries.count, key: { entries[$0].key }, rest: { entries[$0].rest },
                  retainedNode: { Unmanaged.passRetained(entries[$0].node) })
    }

    /// A tree of `count` entries whose `i`th in the order of ``IndexEntry/order(_:_:)`` has the
    /// keys `key(i)` and `rest(i)` and the node `retainedNode(i)`, retained once for its entry (the
    /// retain is handed over: the entries are filled without touching the nodes, which in index
    /// order lie at random in memory). Leaves half full (room for inserts before the first splits),
    /// filled in order, each with ``leafRoom`` to spare.
    init(count: Int, key: (Int) -> IndexKey, rest: (Int) -> [IndexKey], retainedNode: (Int) -> Unmanaged<CacheNode>) {
        let half = Self.leafCapacity / 2
        leaves.reserveCapacity((count + half - 1) / half)
        lasts.reserveCapacity((count + half - 1) / half)
        lastBits.reserveCapacity((count + half - 1) / half)
        var start = 0
        while start < count {
            let end = min(start + half, count)
            let leaf = [IndexEntry](unsafeUninitializedCapacity: end - start + Self.leafRoom) { buffer, initialized in
                initialized = 0
                guard let base = buffer.baseAddress else { return }
                for position in start..<end {
                    (base + (position - start)).initialize(to: IndexEntry(key: key(position), rest: rest(position),
                                                                           node: retainedNode(position).takeRetainedValue()))
                    initialized += 1
                }
            }
            if let last = leaf.last {
                lasts.append(last)
                lastBits.append(IndexSearchBits.of(last.key))
            }
            leaves.append(leaf)
            start = end
        }
        self.count = count
    }

    var startPosition: IndexPosition { IndexPosition(leaf: 0, offset: 0) }
    var endPosition: IndexPosition { IndexPosition(leaf: leaves.count, offset: 0) }

    subscript(position: IndexPosition) -> IndexEntry { leaves[position.leaf][position.offset] }

    /// The first position whose entry satisfies `isAfter`, which must be false for a prefix
    /// of the entries and true for the rest.
    func partitionPoint(_ isAfter: (IndexEntry) -> Bool) -> IndexPosition {
        var low = 0, high = lasts.count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(lasts[mid]) { high = mid } else { low = mid + 1 }
        }
        guard low < leaves.count else { return endPosition }
        let leaf = leaves[low]
        var a = 0, b = leaf.count
        while a < b {
            let mid = (a + b) / 2
            if isAfter(leaf[mid]) { b = mid } else { a = mid + 1 }
        }
        return IndexPosition(leaf: low, offset: a)
    }

    /// The first position whose entry comes after (`after`) or not before the entry of `key`,
    /// `rest` and `identity`: ``partitionPoint(_:)`` specialised to the order of entries,
    /// reading entries in place (no copy, so no retain of their nodes, on the path of every save).
    private func place(of key: IndexKey, _ rest: [IndexKey], _ identity: UInt, after: Bool) -> IndexPosition {
        /// Whether `entry` is past the place.
        func isAfter(_ entry: UnsafePointer<IndexEntry>) -> Bool {
            var byKey = IndexKey.order(entry.pointee.key, entry.pointee.rest, key, rest)
            if byKey == 0 {
                let other = UInt(bitPattern: ObjectIdentifier(entry.pointee.node))
                byKey = other < identity ? -1 : (other == identity ? 0 : 1)
            }
            return after ? byKey > 0 : byKey >= 0
        }
        let bits = IndexSearchBits.of(key)
        let leaf = lasts.withUnsafeBufferPointer { lasts -> Int in
            lastBits.withUnsafeBufferPointer { lastBits -> Int in
                guard let base = lasts.baseAddress else { return 0 }
                var low = 0, high = min(lasts.count, lastBits.count)
                while low < high {
                    let mid = (low + high) / 2
                    // Keys whose bits differ differ the same way, in either mode of `after`.
                    let byBits = IndexSearchBits.order(lastBits[mid], bits)
                    if byBits != 0 ? byBits > 0 : isAfter(base + mid) { high = mid } else { low = mid + 1 }
                }
                return low
            }
        }
        guard leaf < leaves.count else { return IndexPosition(leaf: leaves.count, offset: 0) }
        let offset = leaves[leaf].withUnsafeBufferPointer { entries -> Int in
            guard let base = entries.baseAddress else { return 0 }
            var a = 0, b = entries.count
            while a < b {
                let mid = (a + b) / 2
                if isAfter(base + mid) { b = mid } else { a = mid + 1 }
            }
            return a
        }
        return IndexPosition(leaf: leaf, offset: offset)
    }

    /// The position after `position`.
    func next(_ position: IndexPosition) -> IndexPosition {
        let offset = position.offset + 1
        if offset < leaves[position.leaf].count { return IndexPosition(leaf: position.leaf, offset: offset) }
        return IndexPosition(leaf: position.leaf + 1, offset: 0)
    }

    /// The position before `position` (which must not be the first).
    func previous(_ position: IndexPosition) -> IndexPosition {
        if position.offset > 0 { return IndexPosition(leaf: position.leaf, offset: position.offset - 1) }
        let leaf = position.leaf - 1
        return IndexPosition(leaf: leaf, offset: leaves[leaf].count - 1)
    }

    /// Calls `body` with the entries in `range` (from lower to upper, or backwards), until it
    /// returns false.
    func walk(_ range: Range<IndexPosition>, backwards: Bool, _ body: (IndexEntry) throws -> Bool) rethrows {
        if range.isEmpty { return }
        if backwards {
            var position = previous(range.upperBound)
            while true {
                if try !body(self[position]) { return }
                if position == range.lowerBound { return }
                position = previous(position)
            }
        } else {
            var position = range.lowerBound
            while position < range.upperBound {
                if try !body(self[position]) { return }
                position = next(position)
            }
        }
    }

    mutating func insert(_ entry: IndexEntry) {
        count += 1
        if leaves.isEmpty {
            leaves = [[entry]]
            lasts = [entry]
            lastBits = [IndexSearchBits.of(entry.key)]
            return
        }
        var position = place(of: entry.key, entry.rest, entry.identity, after: true)
        if position.leaf == leaves.count {  // after every entry: the end of the last leaf
            position = IndexPosition(leaf: leaves.count - 1, offset: leaves[leaves.count - 1].count)
        }
        leaves[position.leaf].insert(entry, at: position.offset)
        if position.offset == leaves[position.leaf].count - 1 { setLast(position.leaf) }
        if leaves[position.leaf].count > Self.leafCapacity {
            let upper = Self.newLeaf(leaves[position.leaf][(Self.leafCapacity / 2)...])
            leaves[position.leaf].removeSubrange((Self.leafCapacity / 2)...)
            leaves.insert(upper, at: position.leaf + 1)
            setLast(position.leaf)
            insertLasts(of: [upper], at: position.leaf + 1)
        }
    }

    /// A leaf of `entries`, with ``leafRoom`` to spare.
    static func newLeaf(_ entries: ArraySlice<IndexEntry>) -> [IndexEntry] {
        var leaf: [IndexEntry] = []
        leaf.reserveCapacity(entries.count + leafRoom)
        leaf.append(contentsOf: entries)
        return leaf
    }

    /// Removes the entry of `node` under `key` and `rest`; false when there is none.
    @discardableResult
    mutating func remove(_ key: IndexKey, _ rest: [IndexKey], _ node: CacheNode) -> Bool {
        let position = place(of: key, rest, UInt(bitPattern: ObjectIdentifier(node)), after: false)
        guard position.leaf < leaves.count, self[position].holds(node) else { return false }
        leaves[position.leaf].remove(at: position.offset)
        if leaves[position.leaf].isEmpty {
            leaves.remove(at: position.leaf)
            lasts.remove(at: position.leaf)
            lastBits.remove(at: position.leaf)
        } else {
            setLast(position.leaf)
        }
        count -= 1
        return true
    }

    /// Takes `leaf`'s last entry (the leaf must not be empty) into ``lasts`` and ``lastBits``,
    /// unless it is the entry of the node there already (a node has one entry in a tree, and a
    /// changed entry of a node leaves the tree before it comes back): copying the entry would
    /// retain its node, a cache miss on a node that lies anywhere in memory.
    mutating func setLast(_ leaf: Int) {
        let isSame = leaves[leaf].withUnsafeBufferPointer { entries -> Bool in
            guard let base = entries.baseAddress, !entries.isEmpty else { return true }
            return (base + (entries.count - 1)).pointee.node === lasts[leaf].node
        }
        guard !isSame, let last = leaves[leaf].last else { return }
        lasts[leaf] = last
        lastBits[leaf] = IndexSearchBits.of(last.key)
    }

    /// Inserts the last entries of new leaves (none empty) into ``lasts`` and ``lastBits``.
    mutating func insertLasts(of newLeaves: [[IndexEntry]], at leaf: Int) {
        let news = newLeaves.compactMap(\.last)
        lasts.insert(contentsOf: news, at: leaf)
        lastBits.insert(contentsOf: news.map { IndexSearchBits.of($0.key) }, at: leaf)
    }
}
