import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// A save's inserts into an index go in as one batch (``IndexTree/insert(contentsOf:)``):
/// the entries must end exactly where inserting them one at a time puts them.
@Suite struct IndexTreeBatchTests {
    /// Nodes of the fixture's `Item` entity, numbered from `start`.
    private static func nodes(_ count: Int, from start: Int) throws -> [CacheNode] {
        let model = try IndexFixture.model(indexed: false)
        let item = try #require(model.entity(named: "Item"))
        return (start..<start + count).map { n in
            CacheNode(objectID: ObjectID(entity: item, store: .interned("batch"), reference: .int(Int64(n))), version: 1, values: [])
        }
    }

    /// A number key from a small range (many duplicates), with nil, NaN and doubles equal to
    /// integers among them.
    private static func numberKey(_ rng: inout SplitMix64) -> IndexKey {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: .null
        case 1: .nan
        case 2: .double(Double(Int.random(in: 0..<200, using: &rng)))
        case 3: .double(Double(Int.random(in: 0..<2_000, using: &rng)) / 10)
        default: .int(Int64.random(in: 0..<200, using: &rng))
        }
    }

    /// A string key: short, long (past the 16 bytes a radix sort sees), non-ASCII, or one that
    /// sorts after every other (as keys counting up do, into the last leaf).
    private static func stringKey(_ rng: inout SplitMix64, counter: inout Int) -> IndexKey {
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .null
        case 1: return .string("a fairly long shared prefix \(Int.random(in: 0..<50, using: &rng))")
        case 2: return .string("é\(Int.random(in: 0..<50, using: &rng))")
        case 3:
            counter += 1
            return .string("~new \(counter)")
        default: return .string("k\(Int.random(in: 0..<300, using: &rng))")
        }
    }

    private static func walked(_ tree: IndexTree) -> [ObjectIdentifier] {
        var nodes: [ObjectIdentifier] = []
        tree.walk(tree.startPosition..<tree.endPosition, backwards: false) { nodes.append(ObjectIdentifier($0.node)); return true }
        return nodes
    }

    private static func checkShape(_ tree: IndexTree) {
        #expect(tree.leaves.allSatisfy { !$0.isEmpty && $0.count <= IndexTree.leafCapacity })
        #expect(tree.lasts.map { ObjectIdentifier($0.node) } == tree.leaves.compactMap(\.last).map { ObjectIdentifier($0.node) })
        #expect(tree.lastBits == tree.lasts.map { IndexSearchBits.of($0.key) })
        #expect(tree.count == tree.leaves.reduce(0) { $0 + $1.count })
    }

    /// Random batches (empty to several leaves long) into trees built in bulk from 0 to 3,000
    /// entries, compared after every batch with a twin taking the same entries one at a time
    /// and with the tree rebuilt from all entries sorted.
    @Test(arguments: [0, 1, 300, 3_000])
    func batchesOfRandomKeysEndInTheSameOrderAsOneAtATimeAndAsARebuild(initial: Int) throws {
        var rng = SplitMix64(seed: UInt64(17 + initial))
        let nodes = try Self.nodes(initial + 4_000, from: 0)
        var counter = 0
        for strings in [false, true] {
            let compound = strings
            func entry(_ node: CacheNode) -> IndexEntry {
                let key = strings ? Self.stringKey(&rng, counter: &counter) : Self.numberKey(&rng)
                let rest: [IndexKey] = compound ? [Self.numberKey(&rng)] : []
                return IndexEntry(key: key, rest: rest, node: node)
            }
            var all = nodes.prefix(initial).map(entry)
            var batched = IndexTree(sorted: all.sorted { IndexEntry.order($0, $1) < 0 })
            var single = batched
            var next = initial
            for size in [0, 1, 2, 37, 100, 255, 256, 257, 600, 3, 700] {
                let batch = nodes[next..<next + size].map(entry)
                next += size
                batched.insert(contentsOf: batch)
                for item in batch { single.insert(item) }
                all += batch
                let sorted = all.sorted { IndexEntry.order($0, $1) < 0 }.map { ObjectIdentifier($0.node) }
                #expect(Self.walked(batched) == sorted)
                #expect(Self.walked(single) == sorted)
                #expect(Self.walked(IndexTree(sorted: all.sorted { IndexEntry.order($0, $1) < 0 })) == sorted)
                Self.checkShape(batched)
            }
            // Every entry can still be found and removed.
            for item in all.shuffled(using: &rng) {
                let removed = batched.remove(item.key, item.rest, item.node)
                #expect(removed)
            }
            #expect(batched.count == 0 && batched.leaves.isEmpty && batched.lasts.isEmpty)
        }
    }

    /// A batch of keys that all sort after every entry lands at the end of the last leaf, which
    /// splits into leaves of at most the capacity, in order.
    @Test func aBatchAfterEveryEntrySplitsTheLastLeafIntoFullEnoughLeavesInOrder() throws {
        let nodes = try Self.nodes(1_000, from: 0)
        var tree = IndexTree(sorted: nodes.prefix(200).enumerated().map { IndexEntry(key: .int(Int64($0.offset)), rest: [], node: $0.element) }
            .sorted { IndexEntry.order($0, $1) < 0 })
        let batch = nodes.dropFirst(200).enumerated().reversed().map { IndexEntry(key: .int(Int64(1_000 + $0.offset)), rest: [], node: $0.element) }
        tree.insert(contentsOf: batch)
        #expect(Self.walked(tree) == nodes.map { ObjectIdentifier($0) })
        Self.checkShape(tree)
        #expect(tree.leaves.dropLast().allSatisfy { $0.count >= IndexTree.leafCapacity / 2 })
    }
}
