/// Inserting many entries at once: a save's inserted nodes into one index.
///
/// One insert at a time waits for each of its search's cache misses in turn (the leaves' last
/// entries, the leaf's buffer, its probed entries: a dozen misses on a large tree whose leaves
/// a save's write has pushed out of the cache). Here the places of all entries are found
/// first: the searches for their leaves interleaved step by step (each step of every search
/// before the next step, so that the misses of different searches are in flight together),
/// then the searches within the leaves, interleaved the same way. Then each leaf takes
/// its entries from the last place to the first (an earlier place stays valid), and a leaf
/// that grew past ``IndexTree/leafCapacity`` splits into leaves of at most that many.
///
/// The entries end in the same order as inserted one at a time (the leaves may be cut
/// elsewhere).
extension IndexTree {
    /// Inserts `entries` (of nodes not in the tree, in any order), as inserting them one at a
    /// time would.
    mutating func insert(contentsOf entries: [IndexEntry]) {
        guard entries.count > 1, !leaves.isEmpty else {
            for entry in entries { insert(entry) }
            return
        }
        let places = places(of: entries)
        // From the last place to the first; entries of one place from the last to the first.
        let order = entries.withUnsafeBufferPointer { entries in
            places.indices.sorted { a, b in
                if places[a] != places[b] { return places[b] < places[a] }
                return IndexEntry.order(entries[a], entries[b]) > 0
            }
        }
        count += entries.count
        var start = 0
        while start < order.count {
            let leaf = places[order[start]].leaf
            var end = start
            while end < order.count, places[order[end]].leaf == leaf {
                leaves[leaf].insert(entries[order[end]], at: places[order[end]].offset)
                end += 1
            }
            setLast(leaf)
            if leaves[leaf].count > Self.leafCapacity { split(leaf) }
            start = end
        }
    }

    /// Cuts a leaf longer than ``IndexTree/leafCapacity`` into as few leaves of about equal
    /// length as hold at most that many each (at least half full).
    private mutating func split(_ leaf: Int) {
        let length = leaves[leaf].count
        let pieces = (length + Self.leafCapacity - 1) / Self.leafCapacity
        let cuts = (0...pieces).map { length * $0 / pieces }
        let uppers = (1..<pieces).map { Self.newLeaf(leaves[leaf][cuts[$0]..<cuts[$0 + 1]]) }
        leaves[leaf].removeSubrange(cuts[1]...)
        setLast(leaf)
        leaves.insert(contentsOf: uppers, at: leaf + 1)
        insertLasts(of: uppers, at: leaf + 1)
    }

    /// Where each entry goes, as ``insert(_:)`` would put it into the tree as it is now: before
    /// the first entry after it; after every entry, the end of the last leaf.
    private func places(of entries: [IndexEntry]) -> [IndexPosition] {
        var places = [IndexPosition](repeating: IndexPosition(leaf: 0, offset: 0), count: entries.count)
        entries.withUnsafeBufferPointer { entries in
            guard let targets = entries.baseAddress else { return }
            var bounds = [(low: Int, high: Int)](repeating: (0, lasts.count), count: entries.count)
            bounds.withUnsafeMutableBufferPointer { bounds in
                // The leaf: the first whose last entry is after the entry.
                let targetBits = entries.map { IndexSearchBits.of($0.key) }
                lasts.withUnsafeBufferPointer { lasts in
                    lastBits.withUnsafeBufferPointer { lastBits in
                        guard let base = lasts.baseAddress, lasts.count == lastBits.count else { return }
                        Self.search(bounds) { target, probe in
                            let byBits = IndexSearchBits.order(lastBits[probe], targetBits[target])
                            return byBits != 0 ? byBits > 0 : Self.isAfter(base + probe, targets + target)
                        }
                    }
                }
                var inLeaves: [Int] = []
                for target in bounds.indices {
                    let leaf = bounds[target].low
                    if leaf == leaves.count {
                        places[target] = IndexPosition(leaf: leaves.count - 1, offset: leaves[leaves.count - 1].count)
                    } else {
                        places[target].leaf = leaf
                        inLeaves.append(target)
                    }
                }
                // The offset in the leaf: the searches interleaved too, a group at a time, each
                // reading its leaf's entries in place (no copy, so no retain of their nodes).
                // Each leaf's length first, in a tight loop: its buffer's header is a cache miss
                // that these loads take together (in the nested calls below, one after another).
                let lengths = inLeaves.map { leaves[places[$0].leaf].count }
                var groupStart = 0
                while groupStart < inLeaves.count {
                    let group = inLeaves[groupStart..<min(groupStart + Self.searchGroup, inLeaves.count)]
                    withLeaves(group.map { places[$0].leaf }) { leafEntries in
                        var groupBounds = lengths[group.indices].map { (low: 0, high: $0) }
                        groupBounds.withUnsafeMutableBufferPointer { groupBounds in
                            Self.search(groupBounds) { member, probe in
                                guard let base = leafEntries[member].baseAddress else { return true }
                                return Self.isAfter(base + probe, targets + group[group.startIndex + member])
                            }
                        }
                        for (member, target) in group.enumerated() { places[target].offset = groupBounds[member].low }
                    }
                    groupStart += Self.searchGroup
                }
            }
        }
        return places
    }

    /// How many searches within leaves run side by side: enough to keep the core's outstanding
    /// cache misses busy; each holds a closure's frame of ``withLeaves(_:_:)`` on the stack.
    private static let searchGroup = 32

    /// Calls `body` with the entries of each leaf numbered in `numbers`, in place, all at once
    /// (one `withUnsafeBufferPointer` inside the other).
    private func withLeaves(_ numbers: [Int], _ body: ([UnsafeBufferPointer<IndexEntry>]) -> Void) {
        var buffers: [UnsafeBufferPointer<IndexEntry>] = []
        buffers.reserveCapacity(numbers.count)
        func nest(_ position: Int) {
            guard position < numbers.count else { return body(buffers) }
            leaves[numbers[position]].withUnsafeBufferPointer { entries in
                buffers.append(entries)
                nest(position + 1)
            }
        }
        nest(0)
    }

    /// Runs binary searches side by side, one step of each in turn: search `t` narrows
    /// `bounds[t]` to the first probe `p` for which `isAfter(t, p)`.
    private static func search(_ bounds: UnsafeMutableBufferPointer<(low: Int, high: Int)>, _ isAfter: (Int, Int) -> Bool) {
        var searching = true
        while searching {
            searching = false
            for target in bounds.indices where bounds[target].low < bounds[target].high {
                let mid = (bounds[target].low + bounds[target].high) / 2
                if isAfter(target, mid) { bounds[target].high = mid } else { bounds[target].low = mid + 1 }
                searching = true
            }
        }
    }

    /// Whether `entry` comes after `target` (of another node) in the order of entries.
    private static func isAfter(_ entry: UnsafePointer<IndexEntry>, _ target: UnsafePointer<IndexEntry>) -> Bool {
        let byKey = IndexKey.order(entry.pointee.key, entry.pointee.rest, target.pointee.key, target.pointee.rest)
        if byKey != 0 { return byKey > 0 }
        return UInt(bitPattern: ObjectIdentifier(entry.pointee.node)) > UInt(bitPattern: ObjectIdentifier(target.pointee.node))
    }
}
