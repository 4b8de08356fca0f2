/// One fetch index of one concrete entity over immutable snapshots: a persistent
/// ``SnapshotIndexTree`` ordered by the compound key of the index's keyed elements. A value: a
/// copy taken by a reader stays as it was while the writer advances its own (O(log n) per change).
struct SnapshotIndex: Sendable {
    let definition: IndexDefinition
    private(set) var tree: SnapshotIndexTree
    /// How many entries hold NaN in an element: an order by the element is then not a total order.
    private(set) var nanCount = 0
    /// How many snapshots hold a value of a kind the index does not cover: the index then
    /// misses objects, and the planner does not use it.
    private(set) var unindexedCount = 0

    /// The index of `definition` over `snapshots` (all of one concrete entity), built in bulk:
    /// the keys are sorted once (see ``IndexBulkOrder``) and the tree built bottom-up.
    init(_ definition: IndexDefinition, snapshots: [ObjectSnapshot]) {
        self.definition = definition
        let width = definition.elements.count
        var columns = [[IndexKey]](repeating: [], count: width)
        // The kept snapshots copied here in their order (while their memory is at hand) and
        // moved into their entries below: copying them in the index's order would retain a
        // million snapshots' references at random, a cache miss each.
        let kept = UnsafeMutablePointer<ObjectSnapshot>.allocate(capacity: snapshots.count)
        defer { kept.deallocate() }  // every snapshot in it is moved out below
        var keptCount = 0
        for column in columns.indices { columns[column].reserveCapacity(snapshots.count) }
        var references: [Int64] = []  // while every reference is an integer
        var integerReferences = true
        for snapshot in snapshots {
            guard let keys = definition.keys(in: snapshot.values) else {
                unindexedCount += 1
                continue
            }
            if AttributeIndex.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
            columns[0].append(keys.first)
            for (column, key) in keys.rest.enumerated() { columns[column + 1].append(key) }
            (kept + keptCount).initialize(to: snapshot)
            keptCount += 1
            if integerReferences {
                if case .int(let reference) = snapshot.objectID.referenceObject {
                    references.append(reference)
                } else {
                    integerReferences = false
                }
            }
        }
        let order = integerReferences
            ? references.withUnsafeBufferPointer { reference in
                IndexBulkOrder.positions(ofColumns: columns, ties: references.map { UInt64(bitPattern: $0) ^ (1 << 63) },
                                         tieLess: { reference[$0] < reference[$1] })
            }
            : IndexBulkOrder.positions(ofColumns: columns, tieLess: {
                SnapshotIndexEntry.referenceOrder(kept[$0].objectID, kept[$1].objectID) < 0
            })
        // `order` is a permutation of the kept positions: each snapshot is moved out once.
        tree = SnapshotIndexTree(count: order.count) { place in
            let position = order[place]
            let rest = width == 1 ? [] : (1..<width).map { columns[$0][position] }
            return SnapshotIndexEntry(key: columns[0][position], rest: rest, snapshot: (kept + position).move())
        }
    }

    /// Takes one object's change: its snapshot before (nil: inserted) and after (nil: deleted).
    mutating func apply(old: ObjectSnapshot?, new: ObjectSnapshot?) {
        // An update that keeps the object's keys (another attribute changed): its entry stays
        // in its place with the new snapshot.
        if let old, let new, let oldKeys = definition.keys(in: old.values), let newKeys = definition.keys(in: new.values),
           IndexKey.order(oldKeys.first, oldKeys.rest, newKeys.first, newKeys.rest) == 0,
           AttributeIndex.holdsNaN(oldKeys.first, oldKeys.rest) == AttributeIndex.holdsNaN(newKeys.first, newKeys.rest),
           tree.replace(with: SnapshotIndexEntry(key: newKeys.first, rest: newKeys.rest, snapshot: new)) {
            return
        }
        if let old {
            if let keys = definition.keys(in: old.values) {
                if tree.remove(SnapshotIndexEntry(key: keys.first, rest: keys.rest, snapshot: old)),
                   AttributeIndex.holdsNaN(keys.first, keys.rest) { nanCount -= 1 }
            } else {
                unindexedCount -= 1
            }
        }
        if let new {
            if let keys = definition.keys(in: new.values) {
                if AttributeIndex.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
                tree.insert(SnapshotIndexEntry(key: keys.first, rest: keys.rest, snapshot: new))
            } else {
                unindexedCount += 1
            }
        }
    }
}

extension SnapshotIndex: PlannableIndex {
    var name: String { definition.name }
    var elements: [IndexedElement] { definition.elements }
    var isComplete: Bool { unindexedCount == 0 }

    /// Backwards, the keys come from the last down, but the objects of one key still in
    /// reference order: the order of a stable sort of objects taken in reference order, so
    /// that a descending page through the index is the page a sort of a scan gives.
    func walk(_ range: EntryRange?, backwards: Bool, _ body: (IndexKey, [IndexKey], ObjectSnapshot) throws -> Bool) rethrows {
        guard backwards else {
            try tree.walk(range, backwards: false) { try body($0.key, $0.rest, $0.snapshot) }
            return
        }
        let below = range?.below ?? { _, _ in false }
        let above = range?.above ?? { _, _ in false }
        var done: (first: IndexKey, rest: [IndexKey])?  // the keys from this one up are walked
        while true {
            // The greatest key left: O(log n) per distinct key.
            var found: (first: IndexKey, rest: [IndexKey])?
            let left = EntryRange(below: below, above: { first, rest in
                above(first, rest) || done.map { IndexKey.order(first, rest, $0.first, $0.rest) >= 0 } ?? false
            })
            tree.walk(left, backwards: true) { entry in
                found = (entry.key, entry.rest)
                return false
            }
            guard let key = found else { return }
            var stopped = false
            let group = EntryRange(below: { below($0, $1) || IndexKey.order($0, $1, key.first, key.rest) < 0 },
                                   above: { above($0, $1) || IndexKey.order($0, $1, key.first, key.rest) > 0 })
            try tree.walk(group, backwards: false) { entry in
                if try body(entry.key, entry.rest, entry.snapshot) { return true }
                stopped = true
                return false
            }
            if stopped { return }
            done = key
        }
    }
}
