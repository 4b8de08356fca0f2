import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// The persistent B+-tree under a server's indexes: order over many levels, ranges both
/// ways, and a tree taken before a change never sees it.
@Suite struct SnapshotIndexTreeTests {
    static func references(_ count: Int) -> [ReferenceObject] {
        (0..<count).map { .int(Int64($0)) }
    }

    static func all(_ tree: SnapshotIndexTree, backwards: Bool = false, _ range: EntryRange? = nil) -> [SnapshotIndexEntry] {
        var walked: [SnapshotIndexEntry] = []
        tree.walk(range, backwards: backwards) { walked.append($0); return true }
        return walked
    }

    static func ids(_ entries: [SnapshotIndexEntry]) -> [ReferenceObject] { entries.map(\.reference) }

    /// A tree of `references` inserted in random order, each under a random key below `keys`,
    /// and the key of each object.
    static func randomTree(_ references: [ReferenceObject], keys: Int, _ rng: inout SplitMix64) -> (SnapshotIndexTree, [ReferenceObject: IndexKey]) {
        var tree = SnapshotIndexTree()
        var keyOf: [ReferenceObject: IndexKey] = [:]
        for reference in references.shuffled(using: &rng) {
            let key = IndexKey.int(Int64(Int.random(in: 0..<keys, using: &rng)))
            keyOf[reference] = key
            tree.insert(SnapshotIndexEntry(key: key, rest: [], reference: reference))
        }
        return (tree, keyOf)
    }

    @Test func insertsAndRemovalsInRandomOrderKeepEveryEntryInOrderAndLeaveEarlierTreesAsTheyWere() throws {
        var rng = SplitMix64(seed: 11)
        let references = Self.references(8_000)
        var (tree, keys) = Self.randomTree(references, keys: 700, &rng)
        let before = tree
        let beforeEntries = Self.all(before)
        #expect(beforeEntries.count == 8_000 && before.count == 8_000)
        var removed = 0
        for reference in references.shuffled(using: &rng).prefix(5_000) {
            let found = tree.remove(SnapshotIndexEntry(key: keys[reference] ?? .null, rest: [], reference: reference))
            #expect(found)
            removed += 1
        }
        let stranger = SnapshotIndexEntry(key: .int(3), rest: [], reference: .int(-1))
        let removedStranger = tree.remove(stranger)
        #expect(!removedStranger)
        let walked = Self.all(tree)
        #expect(walked.count == 3_000 && tree.count == 3_000 && removed == 5_000)
        #expect(zip(walked, walked.dropFirst()).allSatisfy { SnapshotIndexEntry.order($0, $1) < 0 })
        #expect(Self.ids(Self.all(tree, backwards: true)) == Self.ids(walked.reversed()))
        // The tree taken before the removals still holds every entry, in order.
        #expect(Self.ids(Self.all(before)) == Self.ids(beforeEntries))
        #expect(zip(beforeEntries, beforeEntries.dropFirst()).allSatisfy { SnapshotIndexEntry.order($0, $1) < 0 })
    }

    /// An index's entries name objects: a change of another attribute leaves the index as it
    /// was (the same nodes), a change of its key moves the entry, and a copy taken before keeps
    /// its entries.
    @Test func onlyAChangeOfAnIndexedKeyChangesASnapshotIndex() throws {
        let model = try IndexFixture.model(indexed: true)
        let item = try #require(model.entity(named: "Item"))
        let byI = try #require(IndexDefinition.all(of: item).first { $0.name == "byI" })
        let i = try #require(item.index(ofProperty: "i")), u = try #require(item.index(ofProperty: "u"))
        let snapshots = (0..<500).map { n in
            var values = item.properties.map { _ in Value.null }
            values[i] = .int(Int64(n % 50))
            return ObjectSnapshot(objectID: ObjectID(entity: item, store: .interned("tree"), reference: .int(Int64(n))), version: 1, values: values)
        }
        var index = SnapshotIndex(byI, snapshots: snapshots)
        let before = index
        var other = snapshots[7]
        other.values[u] = .int(99)
        other.version = 2
        index.apply(old: snapshots[7], new: other)
        #expect(index.tree.root === before.tree.root && index.tree.count == 500)

        var moved = other
        moved.values[i] = .int(1_000)
        moved.version = 3
        index.apply(old: other, new: moved)
        var last: [SnapshotIndexEntry] = []
        index.tree.walk(nil, backwards: true) { last.append($0); return false }
        #expect(last.map(\.reference) == [.int(7)] && index.tree.count == 500)
        var keyOfSeven: [IndexKey] = []
        before.tree.walk(nil, backwards: false) { entry in
            if entry.reference == .int(7) { keyOfSeven.append(entry.key) }
            return true
        }
        #expect(keyOfSeven.count == 1 && keyOfSeven.first.map { IndexKey.order($0, .int(7)) == 0 } == true)
    }

    @Test func aRangeWalkedEitherWayHoldsExactlyTheEntriesBetweenItsBounds() throws {
        var rng = SplitMix64(seed: 12)
        let entries = Self.references(5_000).map { SnapshotIndexEntry(key: .int(Int64(Int.random(in: 0..<300, using: &rng))), rest: [], reference: $0) }
            .sorted { SnapshotIndexEntry.order($0, $1) < 0 }
        let tree = SnapshotIndexTree(sorted: entries)
        for (low, high) in [(0, 0), (10, 20), (299, 400), (-5, 3), (150, 149), (37, 37)] {
            let range = EntryRange(prefix: [], element: KeyRange(below: { IndexKey.order($0, .int(Int64(low))) < 0 }, above: { IndexKey.order($0, .int(Int64(high))) > 0 }))
            let expected = entries.filter { guard case .int(let k) = $0.key else { return false }; return k >= low && k <= high }
            #expect(Self.ids(Self.all(tree, range)) == Self.ids(expected), "\(low)...\(high)")
            #expect(Self.ids(Self.all(tree, backwards: true, range)) == Self.ids(expected.reversed()), "\(low)...\(high) backwards")
        }
        var firstThree: [SnapshotIndexEntry] = []
        tree.walk(nil, backwards: true) { firstThree.append($0); return firstThree.count < 3 }
        #expect(Self.ids(firstThree) == Self.ids(Array(entries.suffix(3).reversed())))
    }
}
