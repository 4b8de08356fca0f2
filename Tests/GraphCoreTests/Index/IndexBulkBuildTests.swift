import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// Indexes built in bulk at load (keys sorted once, the tree filled in order) hold exactly
/// the entries, in exactly the order, that inserting one object at a time gives: for every
/// kind of key, with ties, duplicates, nil, NaN, mixed kinds, folded and non-ASCII strings.
@Suite struct IndexBulkBuildTests {
    /// Value lists to index, each placed in the indexed attribute of every item.
    static func valueLists() -> [(name: String, values: [Value])] {
        var rng = SplitMix64(seed: 17)
        let base = Date(timeIntervalSinceReferenceDate: 0)
        let longPrefix = "a shared prefix longer than sixteen bytes "
        let strings: [String] = ["", "a", "ab", "ab\u{0}", "abc", "B", "b", "é", "e\u{301}", "e\u{301}x", "Émile", "émile",
                                 "0123456789abcde\u{301}", "0123456789abcdef\u{301}", "0123456789abcdefé", "0123456789abcdefe",
                                 longPrefix + "1", longPrefix + "2", longPrefix, "ÅNGSTRÖM", "ångström", "z\u{0}z", "\u{10FFFF}"]
        let extremes: [Value] = [.int(.min), .int(.max), .int(0), .int(-1), .bool(true), .bool(false), .null]
        let specialDoubles: [Value] = [.double(0), .double(-0.0), .double(.infinity), .double(-.infinity), .double(.nan),
                                       .double(1.5), .double(-1.5), .double(.leastNonzeroMagnitude),
                                       .double(-.leastNonzeroMagnitude), .null]
        var lists: [(name: String, values: [Value])] = [("empty", []), ("one integer", [.int(42)]), ("one nil", [.null]),
                                                        ("only nil", Array(repeating: .null, count: 40))]
        lists.append(("random integers with many ties", (0..<3_000).map { _ in .int(Int64.random(in: -20...20, using: &rng)) }))
        lists.append(("extreme integers and bools", (0..<600).map { extremes[$0 % extremes.count] }))
        lists.append(("unique integers", (0..<2_500).map { _ in .int(Int64.random(in: .min ... .max, using: &rng)) }))
        lists.append(("doubles with zeros, infinities and NaN", (0..<1_500).map { n -> Value in
            let quarter = Double(Int.random(in: -50...50, using: &rng)) / 4
            return n % 11 == 10 ? .double(quarter) : specialDoubles[n % 11]
        }))
        lists.append(("integers and doubles mixed", (0..<800).map { n -> Value in
            let half = Double(n % 17) / 2
            switch n % 3 {
            case 0: return .double(half)
            case 1: return .int(Int64(n % 13))
            default: return .double(.nan)
            }
        }))
        lists.append(("strings with shared prefixes, NUL and non-ASCII", (0..<2_000).map { n -> Value in
            n % 9 == 0 ? .null : .string(strings[Int.random(in: 0..<strings.count, using: &rng)])
        }))
        lists.append(("ASCII strings of many lengths", (0..<3_000).map { _ -> Value in
            let tail = String(repeating: "x", count: Int.random(in: 0..<20, using: &rng))
            return .string("key \(Int.random(in: 0..<700, using: &rng))" + tail)
        }))
        lists.append(("dates", (0..<1_000).map { n -> Value in
            n % 10 == 0 ? .null : .date(base.addingTimeInterval(Double(Int.random(in: -100...100, using: &rng)) * 0.5))
        }))
        lists.append(("strings and integers mixed", (0..<500).map { n -> Value in
            n % 2 == 0 ? .string(strings[n % strings.count]) : .int(Int64(n % 7))
        }))
        lists.append(("values no index covers among keys", (0..<300).map { n -> Value in
            n % 5 == 0 ? .binary(Data([1])) : .int(Int64(n % 4))
        }))
        return lists
    }

    static func nodes(_ values: [Value], at position: Int, model: ObjectModel) throws -> [ObjectSnapshot] {
        let item = try #require(model.entity(named: "Item"))
        return values.enumerated().map { n, value in
            var row = [Value](repeating: .null, count: item.properties.count)
            row[position] = value
            return ObjectSnapshot(objectID: ObjectID(entity: item, store: .interned("bulk"), reference: .int(Int64(n))), version: 1, values: row)
        }
    }

    /// A key as text that tells every key apart, strings by their scalars (`==` on strings
    /// would call "é" and "e\u{301}" equal).
    static func exactly(_ key: IndexKey) -> String {
        if case .string(let s) = key { return "string " + s.unicodeScalars.map { String($0.value) }.joined(separator: " ") }
        return String(reflecting: key)
    }

    /// Every entry of an index, in order.
    static func entries(_ index: SnapshotIndex) -> [SnapshotIndexEntry] {
        var entries: [SnapshotIndexEntry] = []
        index.tree.walk(nil, backwards: false) { entries.append($0); return true }
        return entries
    }

    /// The leaves of a tree, in order.
    static func leaves(_ tree: SnapshotIndexTree) -> [SnapshotIndexTree.Node] {
        func leaves(_ node: SnapshotIndexTree.Node) -> [SnapshotIndexTree.Node] {
            node.isLeaf ? [node] : node.children.flatMap(leaves)
        }
        return tree.root.map(leaves) ?? []
    }

    /// A store's index: integer references, the snapshots in no order (as the bulk build's
    /// radix sort and its ties see them).
    @Test func aBulkBuiltStoreIndexEqualsTheIndexInsertsBuildForEveryKindOfKey() throws {
        let model = try IndexFixture.model(indexed: true)
        let attributes = IndexDefinition.all(of: try #require(model.entity(named: "Item")))
        #expect(attributes.contains { !$0.folding.isEmpty })
        for attribute in attributes {
            for (name, values) in Self.valueLists() {
                let nodes = try Self.nodes(values, at: attribute.elements[0].propertyIndex, model: model)
                let bulk = SnapshotIndex(attribute, snapshots: nodes.shuffled())
                var inserted = SnapshotIndex(attribute, snapshots: [])
                for node in nodes { inserted.apply(old: nil, new: node) }
                let all = Self.entries(bulk), expected = Self.entries(inserted)
                #expect(all.map(\.reference) == expected.map(\.reference), "\(name) in \(attribute.name)")
                #expect(all.map { Self.exactly($0.key) } == expected.map { Self.exactly($0.key) }, "\(name) in \(attribute.name)")
                #expect(bulk.tree.count == inserted.tree.count && bulk.nanCount == inserted.nanCount
                        && bulk.unindexedCount == inserted.unindexedCount, "\(name) in \(attribute.name)")
                #expect(zip(all, all.dropFirst()).allSatisfy { SnapshotIndexEntry.order($0, $1) < 0 }, "\(name) in \(attribute.name)")
                #expect(Self.leaves(bulk.tree).allSatisfy { !$0.entries.isEmpty && $0.entries.count <= SnapshotIndexTree.leafCapacity })
            }
        }
    }

    @Test func aBulkBuiltSnapshotIndexEqualsTheIndexInsertsBuildForEveryKindOfKey() throws {
        let model = try IndexFixture.model(indexed: true)
        let attributes = IndexDefinition.all(of: try #require(model.entity(named: "Item")))
        for attribute in attributes {
            for (name, values) in Self.valueLists() {
                let nodes = try Self.nodes(values, at: attribute.elements[0].propertyIndex, model: model)
                // Integer references, and string references after them for half of the lists.
                let snapshots = nodes.enumerated().map { n, node in
                    let reference: ReferenceObject = n % 2 == 1 && name.count % 2 == 0 ? .string("r\(n % 10)-\(n)") : .int(Int64(n))
                    return ObjectSnapshot(objectID: ObjectID(entity: node.objectID.entity, store: .interned("bulk"), reference: reference),
                                          version: 1, values: node.values)
                }
                let bulk = SnapshotIndex(attribute, snapshots: snapshots.shuffled())
                var inserted = SnapshotIndex(attribute, snapshots: [])
                for snapshot in snapshots { inserted.apply(old: nil, new: snapshot) }
                var walked: [SnapshotIndexEntry] = [], expected: [SnapshotIndexEntry] = []
                bulk.tree.walk(nil, backwards: false) { walked.append($0); return true }
                inserted.tree.walk(nil, backwards: false) { expected.append($0); return true }
                #expect(walked.map(\.reference) == expected.map(\.reference), "\(name) in \(attribute.name)")
                #expect(zip(walked, walked.dropFirst()).allSatisfy { SnapshotIndexEntry.order($0, $1) < 0 }, "\(name) in \(attribute.name)")
                #expect(bulk.tree.count == inserted.tree.count && bulk.nanCount == inserted.nanCount
                        && bulk.unindexedCount == inserted.unindexedCount, "\(name) in \(attribute.name)")
            }
        }
    }

    @Test func theRadixOrderOfKeysIsTheirIndexOrder() {
        var rng = SplitMix64(seed: 5)
        let keys: [IndexKey] = (0..<5_000).map { _ in
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: .int(Int64.random(in: -3...3, using: &rng) << Int64.random(in: 0...60, using: &rng))
            case 1: .int(Int64.random(in: .min ... .max, using: &rng))
            default: .int(Int64.random(in: -2...2, using: &rng))
            }
        }
        let order = IndexBulkOrder.positions(of: keys, tieLess: <)
        let expected = keys.indices.sorted { a, b in
            let byKey = IndexKey.order(keys[a], keys[b])
            return byKey != 0 ? byKey < 0 : a < b
        }
        #expect(order == expected)
        // Ties given as numbers, already in order or not, and strings sharing their first 16 bytes.
        let reversed = keys.indices.map { UInt64(keys.count - $0) }
        #expect(IndexBulkOrder.positions(of: keys, ties: reversed, tieLess: { reversed[$0] < reversed[$1] })
                == keys.indices.sorted { a, b in
                    let byKey = IndexKey.order(keys[a], keys[b])
                    return byKey != 0 ? byKey < 0 : a > b
                })
        #expect(IndexBulkOrder.positions(of: keys, ties: keys.indices.map { UInt64($0) }, tieLess: <) == expected)
        let strings: [IndexKey] = (0..<2_000).map { _ in
            .string("0123456789abcdef" + ["", "a", "b", "\u{0}", "é"][Int.random(in: 0..<5, using: &rng)])
        }
        let ties = strings.indices.map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
        #expect(IndexBulkOrder.positions(of: strings, ties: ties, tieLess: { ties[$0] < ties[$1] })
                == strings.indices.sorted { a, b in
                    let byKey = IndexKey.order(strings[a], strings[b])
                    return byKey != 0 ? byKey < 0 : ties[a] < ties[b]
                })
    }

    @Test func shortStringsAreOrderedByTheirBitsAloneAndAStringWithNULIsNot() {
        var rng = SplitMix64(seed: 11)
        // Up to 16 bytes without NUL: the bits are the whole string. "ab" and "ab\0" share
        // their bits: a NUL sends the keys to the full comparison.
        for pool in [["", "a", "ab", "abc", "key 1", "key 10", "0123456789abcdef"], ["ab", "ab\u{0}", "ab\u{0}\u{0}", "a"]] {
            let keys: [IndexKey] = (0..<3_000).map { _ in .string(pool[Int.random(in: 0..<pool.count, using: &rng)]) }
            let ties = keys.indices.map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
            #expect(IndexBulkOrder.positions(of: keys, ties: ties, tieLess: { ties[$0] < ties[$1] })
                    == keys.indices.sorted { a, b in
                        let byKey = IndexKey.order(keys[a], keys[b])
                        return byKey != 0 ? byKey < 0 : ties[a] < ties[b]
                    }, "\(pool)")
        }
    }

    @Test func tiesInAFewIncreasingRunsAreOrderedAsTiesInAnyOrder() {
        // A loader's nodes lie in a few runs of increasing addresses (one per thread's block):
        // those ties are merged; any other order is sorted. Both give the index order.
        var rng = SplitMix64(seed: 23)
        let count = 8_192
        let keys: [IndexKey] = (0..<count).map { _ in .int(Int64.random(in: 0..<50, using: &rng)) }
        let runs = [UInt64(5_000_000), 1_000, 9_000_000, 2_000_000]
        let fewRuns = (0..<count).map { runs[$0 * runs.count / count] + UInt64($0) * 16 }
        let shuffled = (0..<count).map { _ in UInt64.random(in: 0...UInt64.max, using: &rng) }
        for ties in [fewRuns, shuffled, Array(fewRuns.reversed())] {
            #expect(IndexBulkOrder.positions(of: keys, ties: ties, tieLess: { ties[$0] < ties[$1] })
                    == keys.indices.sorted { a, b in
                        let byKey = IndexKey.order(keys[a], keys[b])
                        return byKey != 0 ? byKey < 0 : ties[a] < ties[b]
                    })
        }
    }

    @Test func indexesOfALoadedStoreAreBuiltSideBySideAndAnswerAsAScan() throws {
        // Enough objects for the indexes to be built on separate threads.
        let count = IndexBuildJobs.parallelThreshold / 4
        let model = try IndexFixture.model(indexed: true)
        let nodes = try Self.nodes((0..<count).map { .int(Int64($0 % 1_000)) }, at: 1, model: model)
        let entity = try #require(model.entity(named: "Item"))
        var table = ObjectIDTable<ObjectSnapshot>()
        for node in nodes { table[node.objectID] = node }
        var indexes = StoreIndexes()
        indexes.rebuild(model: model, tables: ["Item": table])
        let built = indexes.indexes(ofEntity: "Item")
        #expect(built.map(\.definition.name) == IndexDefinition.all(of: entity).map(\.name))
        let byI = try #require(indexes.index(ofEntity: "Item", firstKey: "i"))
        #expect(byI.tree.count == count)
        let keys = Self.entries(byI).map { entry -> Int64 in
            if case .int(let i) = entry.key { return i }
            return -1
        }
        #expect(keys == nodes.map { node -> Int64 in
            if case .int(let i) = node.values[1] { return i }
            return -1
        }.sorted())
    }

    @Test func aLargeBulkBuiltTreeIsInOrderWithItsLeavesThreeQuartersFullAndTheirLastEntries() throws {
        let count = IndexBuildJobs.parallelThreshold * 2 + 77
        let model = try IndexFixture.model(indexed: true)
        let item = try #require(model.entity(named: "Item"))
        var rng = SplitMix64(seed: 29)
        for name in ["byI", "byD"] {  // the exact build, and the general one (doubles)
            let definition = try #require(IndexDefinition.all(of: item).first { $0.name == name })
            let values: [Value] = (0..<count).map { _ in
                name == "byI" ? .int(Int64.random(in: 0..<5_000, using: &rng)) : .double(Double(Int.random(in: 0..<5_000, using: &rng)) / 4)
            }
            let nodes = try Self.nodes(values, at: definition.elements[0].propertyIndex, model: model)
            let index = SnapshotIndex(definition, snapshots: nodes)
            let tree = index.tree
            let entries = Self.entries(index)
            #expect(entries.count == count && tree.count == count)
            #expect(zip(entries, entries.dropFirst()).allSatisfy { SnapshotIndexEntry.order($0, $1) < 0 }, "\(name)")
            #expect(Set(entries.map(\.reference)) == Set(nodes.map(\.objectID.referenceObject)))
            // Leaves filled to three quarters (room for inserts), each node knowing its last entry.
            let leaves = Self.leaves(tree)
            #expect(leaves.dropLast().allSatisfy { $0.entries.count == SnapshotIndexTree.leafCapacity * 3 / 4 })
            for leaf in leaves { #expect(leaf.last?.reference == leaf.entries.last?.reference) }
            #expect(tree.root?.last?.reference == entries.last?.reference)
        }
    }
}
