import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// How the persistent tree changes: in place where it holds the only reference to a node, by
/// copying where another tree shares it, and many inserts at once as one at a time.
@Suite struct SnapshotIndexTreeChangeTests {
    typealias Node = SnapshotIndexTree.Node

    static func entry(_ key: Int, _ reference: Int) -> SnapshotIndexEntry {
        SnapshotIndexEntry(key: .int(Int64(key)), rest: [], reference: .int(Int64(reference)))
    }

    /// The identity of every node of a tree, without holding one (a held node is shared).
    static func identities(_ tree: SnapshotIndexTree) -> Set<ObjectIdentifier> {
        var found: Set<ObjectIdentifier> = []
        func visit(_ node: Node) {
            found.insert(ObjectIdentifier(node))
            for child in node.children { visit(child) }
        }
        if let root = tree.root { visit(root) }
        return found
    }

    /// Every rule of the tree's shape: leaves not empty and at most `leafCapacity` entries,
    /// inner nodes of 1 to `fanout` children, every leaf at one depth, each node's last entry
    /// its last leaf's last, the entries in order and as many as `count`. The problems found.
    static func problems(_ tree: SnapshotIndexTree) -> [String] {
        var problems: [String] = [], depths: Set<Int> = [], entries: [SnapshotIndexEntry] = []
        func visit(_ node: Node, depth: Int) -> SnapshotIndexEntry? {
            var last: SnapshotIndexEntry?
            if node.isLeaf {
                depths.insert(depth)
                if node.entries.isEmpty || node.entries.count > SnapshotIndexTree.leafCapacity { problems.append("a leaf of \(node.entries.count)") }
                entries += node.entries
                last = node.entries.last
            } else {
                if node.children.count > SnapshotIndexTree.fanout { problems.append("an inner node of \(node.children.count)") }
                for child in node.children { last = visit(child, depth: depth + 1) }
            }
            if let last, node.last.map({ SnapshotIndexEntry.order($0, last) != 0 }) ?? true { problems.append("a wrong last entry") }
            return last
        }
        if let root = tree.root { _ = visit(root, depth: 0) }
        if depths.count > 1 { problems.append("leaves at depths \(depths.sorted())") }
        if entries.count != tree.count { problems.append("\(entries.count) entries, count \(tree.count)") }
        if !zip(entries, entries.dropFirst()).allSatisfy({ SnapshotIndexEntry.order($0, $1) < 0 }) { problems.append("entries out of order") }
        return problems
    }

    static func references(_ tree: SnapshotIndexTree) -> [ReferenceObject] {
        var walked: [ReferenceObject] = []
        tree.walk(nil, backwards: false) { walked.append($0.reference); return true }
        return walked
    }

    @Test func aTreeThatHoldsItsNodesAloneChangesThemInPlace() {
        var tree = SnapshotIndexTree(sorted: (0..<5_000).map { Self.entry($0 * 2, $0) })
        let before = Self.identities(tree)
        // Into a leaf with room, out of another: no node is made, none is freed.
        tree.insert(Self.entry(1, 10_001))
        let removed = tree.remove(Self.entry(5_000, 2_500))
        #expect(removed)
        #expect(Self.identities(tree) == before)
        #expect(Self.problems(tree).isEmpty, "\(Self.problems(tree))")
        // Many inserts: the nodes they split are new, every other node stays.
        for n in 0..<2_000 { tree.insert(Self.entry(n * 5 + 1, 20_000 + n)) }
        #expect(Self.identities(tree).intersection(before).count > before.count / 2)
        #expect(Self.problems(tree).isEmpty, "\(Self.problems(tree))")
    }

    @Test func aTreeThatSharesItsNodesWithACopyCopiesThePathsItChangesOnlyOnce() {
        var tree = SnapshotIndexTree(sorted: (0..<5_000).map { Self.entry($0 * 2, $0) })
        let published = tree
        let publishedEntries = Self.references(published)
        tree.insert(Self.entry(1, 10_001))
        let afterFirst = Self.identities(tree)
        // The path changed is new; the rest is shared with the copy.
        #expect(!afterFirst.contains(ObjectIdentifier(published.root ?? Node.leaf([]))))
        #expect(afterFirst.intersection(Self.identities(published)).count == afterFirst.count - published.depth)
        // The same leaf changed again: now in place.
        tree.insert(Self.entry(3, 10_002))
        #expect(Self.identities(tree) == afterFirst)
        let removed = tree.remove(Self.entry(5_000, 2_500))
        #expect(removed)
        #expect(Self.references(published) == publishedEntries && published.count == 5_000)
        #expect(Self.problems(published).isEmpty && Self.problems(tree).isEmpty)
        #expect(tree.count == 5_001)
    }

    /// Random batches (sorted, of every size, keys between and beyond the tree's), into trees of
    /// every size, against the same entries inserted one at a time; a copy taken before keeps
    /// its entries.
    @Test func aBatchInsertHoldsTheEntriesOfInsertsOneAtATimeAndLeavesACopyAsItWas() {
        var rng = SplitMix64(seed: 44)
        var reference = 0
        func entries(_ count: Int, keys: Int) -> [SnapshotIndexEntry] {
            (0..<count).map { _ in
                reference += 1
                return Self.entry(Int.random(in: -10..<keys, using: &rng), reference)
            }
        }
        for (size, batch) in [(0, 5), (1, 1), (3, 2), (7, 40), (100, 1), (100, 300), (2_000, 100), (2_000, 5_000), (20_000, 64)] {
            var batched = SnapshotIndexTree()
            for entry in entries(size, keys: size + 10) { batched.insert(entry) }
            let copy = batched, copied = Self.references(batched)
            var single = batched
            let added = entries(batch, keys: size + 20).sorted { SnapshotIndexEntry.order($0, $1) < 0 }
            batched.insert(sorted: added)
            for entry in added { single.insert(entry) }
            #expect(Self.references(batched) == Self.references(single), "\(size) + \(batch)")
            #expect(batched.count == size + batch, "\(size) + \(batch)")
            #expect(Self.problems(batched).isEmpty, "\(size) + \(batch): \(Self.problems(batched))")
            #expect(Self.references(copy) == copied && copy.count == size, "\(size) + \(batch)")
        }
    }

    @Test func removingEveryEntryInRandomOrderEmptiesTheTreeWithItsShapeKeptOnTheWay() {
        var rng = SplitMix64(seed: 45)
        let all = (0..<3_000).map { Self.entry($0 % 97, $0) }.sorted { SnapshotIndexEntry.order($0, $1) < 0 }
        var tree = SnapshotIndexTree()
        tree.insert(sorted: all)
        for (n, entry) in all.shuffled(using: &rng).enumerated() {
            let removed = tree.remove(entry)
            #expect(removed)
            if n % 500 == 0 { #expect(Self.problems(tree).isEmpty, "\(Self.problems(tree))") }
        }
        let removedAgain = tree.remove(all[0])
        #expect(tree.root == nil && tree.count == 0 && !removedAgain)
    }

    /// A store's save changes the nodes of its indexes in place, and a failed save (checked in
    /// IndexUpkeepTests) takes its changes out again.
    @Test func aStoresSaveChangesItsIndexesInPlace() throws {
        let container = try PersistentContainer(model: IndexFixture.model(indexed: true), storeType: "InMemory")
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        var rng = SplitMix64(seed: 46)
        _ = try IndexFixture.insert(IndexFixture.items(2_000, &rng), into: container.viewContext)
        func roots() -> [ObjectIdentifier?] {
            store.storeIndexes.indexes(ofEntity: "Item").map { $0.tree.root.map(ObjectIdentifier.init) }
        }
        let before = roots()
        let item = try #require(try container.viewContext.fetch(FetchRequest(entityName: "Item")).first)
        try item.setValue(.int(123_456), forKey: "i")
        try container.viewContext.save()
        #expect(roots() == before)
        #expect(store.storeIndexes.indexes(ofEntity: "Item").allSatisfy { Self.problems($0.tree).isEmpty })
    }
}

extension SnapshotIndexTree {
    /// How many nodes a path from the root to a leaf holds.
    var depth: Int {
        var depth = 0, node = root
        while let current = node {
            depth += 1
            node = current.children.first
        }
        return depth
    }
}
