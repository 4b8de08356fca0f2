/// One fetch index of one concrete entity over immutable snapshots: a persistent
/// ``SnapshotIndexTree`` ordered by the index's first attribute. A value: a copy taken by a
/// reader stays as it was while the writer advances its own (O(log n) per change).
struct SnapshotIndex: Sendable {
    let attribute: IndexedAttribute
    private(set) var tree: SnapshotIndexTree
    /// How many entries hold NaN: an order by the attribute is then not a total order.
    private(set) var nanCount = 0
    /// How many snapshots hold a value of a kind the index does not cover: the index then
    /// misses objects, and the planner does not use it.
    private(set) var unindexedCount = 0

    /// The index of `attribute` over `snapshots` (all of one concrete entity), built in bulk:
    /// the keys are sorted once (see ``IndexBulkOrder``) and the tree built bottom-up.
    init(_ attribute: IndexedAttribute, snapshots: [ObjectSnapshot]) {
        self.attribute = attribute
        var keys: [IndexKey] = []
        // The kept snapshots copied here in their order (while their memory is at hand) and
        // moved into their entries below: copying them in the index's order would retain a
        // million snapshots' references at random, a cache miss each.
        let kept = UnsafeMutablePointer<ObjectSnapshot>.allocate(capacity: snapshots.count)
        defer { kept.deallocate() }  // every snapshot in it is moved out below
        var keptCount = 0
        keys.reserveCapacity(snapshots.count)
        var references: [Int64] = []  // while every reference is an integer
        var integerReferences = true
        for snapshot in snapshots {
            guard let key = Self.key(of: snapshot, attribute) else {
                unindexedCount += 1
                continue
            }
            if case .nan = key { nanCount += 1 }
            keys.append(key)
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
                IndexBulkOrder.positions(of: keys, ties: references.map { UInt64(bitPattern: $0) ^ (1 << 63) },
                                         tieLess: { reference[$0] < reference[$1] })
            }
            : IndexBulkOrder.positions(of: keys, tieLess: {
                SnapshotIndexEntry.referenceOrder(kept[$0].objectID, kept[$1].objectID) < 0
            })
        // `order` is a permutation of the kept positions: each snapshot is moved out once.
        tree = SnapshotIndexTree(count: order.count) { SnapshotIndexEntry(key: keys[order[$0]], snapshot: (kept + order[$0]).move()) }
    }

    private static func key(of snapshot: ObjectSnapshot, _ attribute: IndexedAttribute) -> IndexKey? {
        attribute.propertyIndex < snapshot.values.count ? attribute.key(of: snapshot.values[attribute.propertyIndex]) : nil
    }

    /// Takes one object's change: its snapshot before (nil: inserted) and after (nil: deleted).
    mutating func apply(old: ObjectSnapshot?, new: ObjectSnapshot?) {
        if let old {
            if let key = Self.key(of: old, attribute) {
                if tree.remove(SnapshotIndexEntry(key: key, snapshot: old)), case .nan = key { nanCount -= 1 }
            } else {
                unindexedCount -= 1
            }
        }
        if let new {
            if let key = Self.key(of: new, attribute) {
                if case .nan = key { nanCount += 1 }
                tree.insert(SnapshotIndexEntry(key: key, snapshot: new))
            } else {
                unindexedCount += 1
            }
        }
    }
}

extension SnapshotIndex: PlannableIndex {
    var name: String { attribute.name }
    var key: String { attribute.key }
    var folding: Comparison.Options { attribute.folding }
    var isComplete: Bool { unindexedCount == 0 }

    /// Backwards, the keys come from the last down, but the objects of one key still in
    /// reference order: the order of a stable sort of objects taken in reference order, so
    /// that a descending page through the index is the page a sort of a scan gives.
    func walk(_ range: KeyRange?, backwards: Bool, _ body: (ObjectSnapshot) throws -> Bool) rethrows {
        guard backwards else {
            try tree.walk(range, backwards: false) { try body($0.snapshot) }
            return
        }
        let below = range?.below ?? { _ in false }
        let above = range?.above ?? { _ in false }
        var done: IndexKey?  // the keys from this one up are walked
        while true {
            // The greatest key left: O(log n) per distinct key.
            var found: IndexKey?
            let left = KeyRange(below: below, above: { key in above(key) || done.map { IndexKey.order(key, $0) >= 0 } ?? false })
            tree.walk(left, backwards: true) { entry in
                found = entry.key
                return false
            }
            guard let key = found else { return }
            var stopped = false
            let group = KeyRange(below: { below($0) || IndexKey.order($0, key) < 0 }, above: { above($0) || IndexKey.order($0, key) > 0 })
            try tree.walk(group, backwards: false) { entry in
                if try body(entry.snapshot) { return true }
                stopped = true
                return false
            }
            if stopped { return }
            done = key
        }
    }
}
