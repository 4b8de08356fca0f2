import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// The persistent B+-tree under a server's indexes: order over many levels, ranges both
/// ways, and a tree taken before a change never sees it.
@Suite struct SnapshotIndexTreeTests {
    static func snapshots(_ count: Int) throws -> [ObjectSnapshot] {
        let model = try IndexFixture.model(indexed: false)
        let item = try #require(model.entity(named: "Item"))
        return (0..<count).map { n in
            ObjectSnapshot(objectID: ObjectID(entity: item, store: .interned("tree"), reference: .int(Int64(n))), version: 1, values: [])
        }
    }

    static func all(_ tree: SnapshotIndexTree, backwards: Bool = false, _ range: EntryRange? = nil) -> [SnapshotIndexEntry] {
        var walked: [SnapshotIndexEntry] = []
        tree.walk(range, backwards: backwards) { walked.append($0); return true }
        return walked
    }

    static func ids(_ entries: [SnapshotIndexEntry]) -> [ObjectID] { entries.map(\.snapshot.objectID) }

    /// A tree of `snapshots` inserted in random order, each under a random key below `keys`,
    /// and the key of each object.
    static func randomTree(_ snapshots: [ObjectSnapshot], keys: Int, _ rng: inout SplitMix64) -> (SnapshotIndexTree, [ObjectID: IndexKey]) {
        var tree = SnapshotIndexTree()
        var keyOf: [ObjectID: IndexKey] = [:]
        for snapshot in snapshots.shuffled(using: &rng) {
            let key = IndexKey.int(Int64(Int.random(in: 0..<keys, using: &rng)))
            keyOf[snapshot.objectID] = key
            tree.insert(SnapshotIndexEntry(key: key, rest: [], snapshot: snapshot))
        }
        return (tree, keyOf)
    }

    @Test func insertsAndRemovalsInRandomOrderKeepEveryEntryInOrderAndLeaveEarlierTreesAsTheyWere() throws {
        var rng = SplitMix64(seed: 11)
        let snapshots = try Self.snapshots(8_000)
        var (tree, keys) = Self.randomTree(snapshots, keys: 700, &rng)
        let before = tree
        let beforeEntries = Self.all(before)
        #expect(beforeEntries.count == 8_000 && before.count == 8_000)
        var removed = 0
        for snapshot in snapshots.shuffled(using: &rng).prefix(5_000) {
            let found = tree.remove(SnapshotIndexEntry(key: keys[snapshot.objectID] ?? .null, rest: [], snapshot: snapshot))
            #expect(found)
            removed += 1
        }
        let stranger = SnapshotIndexEntry(key: .int(3), rest: [], snapshot: try #require(Self.snapshots(1).first.map {
            ObjectSnapshot(objectID: ObjectID(entity: $0.objectID.entity, store: .interned("tree"), reference: .int(-1)), version: 1, values: [])
        }))
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

    /// A new snapshot of an object whose keys did not change takes its entry's place, in
    /// every leaf position; a tree taken before still gives the old snapshot, and an entry the
    /// tree does not hold (another key, another object) is refused without a change.
    @Test func aReplacementTakesTheEntrysPlaceAndLeavesEarlierTreesAsTheyWere() throws {
        var rng = SplitMix64(seed: 23)
        let snapshots = try Self.snapshots(3_000)
        var (tree, keys) = Self.randomTree(snapshots, keys: 200, &rng)
        let before = tree
        let beforeEntries = Self.all(before)
        for snapshot in snapshots {
            var next = snapshot
            next.version = 2
            let replaced = tree.replace(with: SnapshotIndexEntry(key: keys[snapshot.objectID] ?? .null, rest: [], snapshot: next))
            #expect(replaced)
        }
        let walked = Self.all(tree)
        #expect(walked.count == 3_000 && tree.count == 3_000)
        #expect(Self.ids(walked) == Self.ids(beforeEntries) && walked.allSatisfy { $0.snapshot.version == 2 })
        #expect(Self.all(before).allSatisfy { $0.snapshot.version == 1 })

        let some = try #require(snapshots.first)
        let otherKey = IndexKey.int(Int64(1_000))
        let wrongKey = tree.replace(with: SnapshotIndexEntry(key: otherKey, rest: [], snapshot: some))
        let stranger = ObjectSnapshot(objectID: ObjectID(entity: some.objectID.entity, store: .interned("tree"), reference: .int(-1)), version: 1, values: [])
        let wrongObject = tree.replace(with: SnapshotIndexEntry(key: keys[some.objectID] ?? .null, rest: [], snapshot: stranger))
        #expect(!wrongKey && !wrongObject)
        #expect(Self.ids(Self.all(tree)) == Self.ids(walked) && Self.all(tree).allSatisfy { $0.snapshot.version == 2 })
    }

    @Test func aRangeWalkedEitherWayHoldsExactlyTheEntriesBetweenItsBounds() throws {
        var rng = SplitMix64(seed: 12)
        let snapshots = try Self.snapshots(5_000)
        let entries = snapshots.map { SnapshotIndexEntry(key: .int(Int64(Int.random(in: 0..<300, using: &rng))), rest: [], snapshot: $0) }
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
