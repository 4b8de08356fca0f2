/// One fetch index of one concrete entity over immutable snapshots: a persistent
/// ``SnapshotIndexTree`` ordered by the compound key of the index's keyed elements, whose
/// entries name objects by reference. A value: a copy taken by a reader stays as it was while
/// the writer advances its own (O(log n) per change of an indexed key, nothing for a change of
/// another attribute). A reader walks it through ``ResolvedSnapshotIndex``, with the state of
/// snapshots it was advanced with.
struct SnapshotIndex: Sendable {
    let definition: IndexDefinition
    private(set) var tree: SnapshotIndexTree
    /// How many entries hold NaN in an element: an order by the element is then not a total order.
    private(set) var nanCount = 0
    /// How many snapshots hold a value of a kind the index does not cover: the index then
    /// misses objects, and the planner does not use it.
    private(set) var unindexedCount = 0

    /// The index of `definition` over `snapshots` (all of one concrete entity), built in bulk.
    init(_ definition: IndexDefinition, snapshots: [ObjectSnapshot]) {
        self.init(definition, count: snapshots.count) { body in
            for snapshot in snapshots { body(snapshot) }
        }
    }

    /// The index of `definition` over the `count` snapshots (all of one concrete entity) that
    /// `forEach` walks where they are (a store's table, without copying them into an array
    /// first), built in bulk: the keys are sorted once (see ``IndexExactBuild`` where it
    /// applies, else ``IndexBulkOrder``) and the tree built bottom-up.
    init(_ definition: IndexDefinition, count: Int, forEach: ((ObjectSnapshot) -> Void) -> Void) {
        self.definition = definition
        if let built = IndexExactBuild.build(definition, count: count, forEach: forEach) {
            tree = built.tree
            nanCount = built.nanCount
            unindexedCount = built.unindexedCount
            return
        }
        let width = definition.elements.count
        var columns = [[IndexKey]](repeating: [], count: width)
        for column in columns.indices { columns[column].reserveCapacity(count) }
        var references: [ReferenceObject] = []
        references.reserveCapacity(count)
        var integers: [Int64] = []  // while every reference is an integer
        var integerReferences = true
        var nans = 0, unindexed = 0
        forEach { snapshot in
            guard let keys = definition.keys(in: snapshot.values) else {
                unindexed += 1
                return
            }
            if Self.holdsNaN(keys.first, keys.rest) { nans += 1 }
            columns[0].append(keys.first)
            for (column, key) in keys.rest.enumerated() { columns[column + 1].append(key) }
            let reference = snapshot.objectID.referenceObject
            references.append(reference)
            if integerReferences {
                if case .int(let number) = reference {
                    integers.append(number)
                } else {
                    integerReferences = false
                }
            }
        }
        nanCount = nans
        unindexedCount = unindexed
        // Constants from here: the closures below read them without exclusivity checks.
        let (keyColumns, referenceColumn) = (columns, references)
        let order = integerReferences
            ? integers.withUnsafeBufferPointer { number in
                IndexBulkOrder.positions(ofColumns: keyColumns, ties: integers.map { UInt64(bitPattern: $0) ^ (1 << 63) },
                                         tieLess: { number[$0] < number[$1] })
            }
            : IndexBulkOrder.positions(ofColumns: keyColumns, tieLess: {
                SnapshotIndexEntry.referenceOrder(referenceColumn[$0], referenceColumn[$1]) < 0
            })
        tree = SnapshotIndexTree(count: order.count) { place in
            let position = order[place]
            let rest = width == 1 ? [] : (1..<width).map { keyColumns[$0][position] }
            return SnapshotIndexEntry(key: keyColumns[0][position], rest: rest, reference: referenceColumn[position])
        }
    }

    /// Whether a compound key holds NaN in an element.
    static func holdsNaN(_ first: IndexKey, _ rest: [IndexKey]) -> Bool {
        if case .nan = first { return true }
        return rest.contains { if case .nan = $0 { true } else { false } }
    }

    /// Takes one object's change: its snapshot before (nil: inserted) and after (nil: deleted).
    /// A change that keeps the object's keys (another attribute changed) leaves the index as
    /// it was: its entry names the object, not a snapshot of it.
    mutating func apply(old: ObjectSnapshot?, new: ObjectSnapshot?) {
        let oldKeys = old.flatMap { definition.keys(in: $0.values) }
        let newKeys = new.flatMap { definition.keys(in: $0.values) }
        if let oldKeys, let newKeys,
           IndexKey.order(oldKeys.first, oldKeys.rest, newKeys.first, newKeys.rest) == 0,
           Self.holdsNaN(oldKeys.first, oldKeys.rest) == Self.holdsNaN(newKeys.first, newKeys.rest) {
            return
        }
        if let old {
            if let keys = oldKeys {
                if tree.remove(SnapshotIndexEntry(key: keys.first, rest: keys.rest, reference: old.objectID.referenceObject)),
                   Self.holdsNaN(keys.first, keys.rest) { nanCount -= 1 }
            } else {
                unindexedCount -= 1
            }
        }
        if let new {
            if let keys = newKeys {
                if Self.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
                tree.insert(SnapshotIndexEntry(key: keys.first, rest: keys.rest, reference: new.objectID.referenceObject))
            } else {
                unindexedCount += 1
            }
        }
    }

    /// Takes many inserted objects at once (a save's): their entries sorted, then added to the
    /// tree in one pass (``SnapshotIndexTree/insert(sorted:)``), as many ``apply(old:new:)``
    /// with no old snapshot would.
    mutating func insert(contentsOf snapshots: [ObjectSnapshot]) {
        guard snapshots.count > 1 else {
            for snapshot in snapshots { apply(old: nil, new: snapshot) }
            return
        }
        var entries: [SnapshotIndexEntry] = []
        entries.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            guard let keys = definition.keys(in: snapshot.values) else {
                unindexedCount += 1
                continue
            }
            if Self.holdsNaN(keys.first, keys.rest) { nanCount += 1 }
            entries.append(SnapshotIndexEntry(key: keys.first, rest: keys.rest, reference: snapshot.objectID.referenceObject))
        }
        entries.sort { SnapshotIndexEntry.order($0, $1) < 0 }
        tree.insert(sorted: entries)
    }

    /// Calls `body` with the compound key and reference of each entry in `range` (nil: all),
    /// in the index's order or backwards, until it returns false.
    ///
    /// Backwards, the keys come from the last down, but the objects of one key still in
    /// reference order: the order of a stable sort of objects taken in reference order, so
    /// that a descending page through the index is the page a sort of a scan gives.
    ///
    /// One walk from the last entry down gathers each key's entries (at most
    /// ``backwardGroup``) and gives them in reference order when the key ends. A key with more
    /// entries than that is walked forwards from its first, and the walk down goes on below it.
    func walk(_ range: EntryRange?, backwards: Bool, _ body: (IndexKey, [IndexKey], ReferenceObject) throws -> Bool) rethrows {
        guard backwards else {
            try tree.walk(range, backwards: false) { try body($0.key, $0.rest, $0.reference) }
            return
        }
        let below = range?.below ?? { _, _ in false }
        let above = range?.above ?? { _, _ in false }
        var done: (first: IndexKey, rest: [IndexKey])?  // the keys from this one up are walked
        var group: [SnapshotIndexEntry] = []  // the current key's entries met so far, the last first
        /// Gives the group's entries in reference order; false once `body` said to stop.
        func flush() throws -> Bool {
            defer { group.removeAll(keepingCapacity: true) }
            for entry in group.reversed() where try !body(entry.key, entry.rest, entry.reference) { return false }
            return true
        }
        while true {
            let left = EntryRange(below: below, above: { first, rest in
                above(first, rest) || done.map { IndexKey.order(first, rest, $0.first, $0.rest) >= 0 } ?? false
            })
            var stopped = false, large = false
            try tree.walk(left, backwards: true) { entry in
                if let last = group.last, IndexKey.order(entry.key, entry.rest, last.key, last.rest) != 0 {
                    guard try flush() else {
                        stopped = true
                        return false
                    }
                } else if group.count == Self.backwardGroup {
                    large = true
                    return false
                }
                group.append(entry)
                return true
            }
            if stopped { return }
            guard large, let key = group.last.map({ (first: $0.key, rest: $0.rest) }) else {
                _ = try flush()
                return
            }
            // A key of many entries: walked forwards from its first, as far as `body` goes.
            group.removeAll(keepingCapacity: true)
            let keyRange = EntryRange(below: { below($0, $1) || IndexKey.order($0, $1, key.first, key.rest) < 0 },
                                      above: { above($0, $1) || IndexKey.order($0, $1, key.first, key.rest) > 0 })
            try tree.walk(keyRange, backwards: false) { entry in
                if try body(entry.key, entry.rest, entry.reference) { return true }
                stopped = true
                return false
            }
            if stopped { return }
            done = key
        }
    }

    /// The most entries of one key a backward walk gathers before it walks that key forwards.
    static let backwardGroup = 64
}

/// A ``SnapshotIndex`` with the snapshots its references name: the objects of its entity in
/// the state it was advanced with. What the planner walks.
struct ResolvedSnapshotIndex: PlannableIndex {
    let index: SnapshotIndex
    /// The snapshot of the object of the index's entity with a reference.
    let snapshot: (ReferenceObject) -> ObjectSnapshot?

    var name: String { index.definition.name }
    var elements: [IndexedElement] { index.definition.elements }
    var isComplete: Bool { index.unindexedCount == 0 }
    var nanCount: Int { index.nanCount }

    /// The state and its indexes advance together, so every entry names an object of the
    /// state; one that did not would be left out (and stop a debug build), never trap.
    func walk(_ range: EntryRange?, backwards: Bool, _ body: (IndexKey, [IndexKey], ObjectSnapshot) throws -> Bool) rethrows {
        try index.walk(range, backwards: backwards) { key, rest, reference in
            guard let found = snapshot(reference) else {
                assertionFailure("an index entry names \(reference), which its state does not hold")
                return true
            }
            return try body(key, rest, found)
        }
    }
}
