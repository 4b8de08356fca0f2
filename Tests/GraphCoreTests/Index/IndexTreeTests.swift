import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// The two-level tree under every index: order, splits and removals over many leaves.
@Suite struct IndexTreeTests {
    @Test func insertsAndRemovalsInRandomOrderKeepEveryEntryInOrderAcrossManyLeaves() throws {
        let model = try IndexFixture.model(indexed: false)
        let item = try #require(model.entity(named: "Item"))
        let nodes = (0..<6_000).map { n in
            CacheNode(objectID: ObjectID(entity: item, store: .interned("tree"), reference: .int(Int64(n))), version: 1, values: [])
        }
        var rng = SplitMix64(seed: 7)
        var keys: [ObjectIdentifier: IndexKey] = [:]
        var tree = IndexTree(sorted: [])
        for node in nodes.shuffled(using: &rng) {
            let key = IndexKey.int(Int64(Int.random(in: 0..<500, using: &rng)))
            keys[ObjectIdentifier(node)] = key
            tree.insert(IndexEntry(key: key, rest: [], node: node))
        }
        #expect(tree.lasts.map { ObjectIdentifier($0.node) } == tree.leaves.compactMap(\.last).map { ObjectIdentifier($0.node) })
        var removed = Set<ObjectIdentifier>()
        for node in nodes.shuffled(using: &rng).prefix(3_500) {
            let found = tree.remove(keys[ObjectIdentifier(node)] ?? .null, [], node)
            #expect(found)
            removed.insert(ObjectIdentifier(node))
        }
        let stranger = CacheNode(objectID: ObjectID(entity: item, store: .interned("tree"), reference: .int(-1)), version: 1, values: [])
        let removedStranger = tree.remove(.int(1), [], stranger)
        #expect(!removedStranger)
        #expect(removed.count == 3_500)
        var walked: [IndexEntry] = []
        tree.walk(tree.startPosition..<tree.endPosition, backwards: false) { walked.append($0); return true }
        #expect(walked.count == 2_500 && tree.count == 2_500)
        #expect(zip(walked, walked.dropFirst()).allSatisfy { IndexEntry.order($0, $1) < 0 })
        #expect(tree.leaves.allSatisfy { !$0.isEmpty && $0.count <= IndexTree.leafCapacity })
        #expect(tree.lasts.map { ObjectIdentifier($0.node) } == tree.leaves.compactMap(\.last).map { ObjectIdentifier($0.node) })
        var backwards: [IndexEntry] = []
        tree.walk(tree.startPosition..<tree.endPosition, backwards: true) { backwards.append($0); return true }
        #expect(backwards.map { ObjectIdentifier($0.node) } == walked.reversed().map { ObjectIdentifier($0.node) })
    }
}
