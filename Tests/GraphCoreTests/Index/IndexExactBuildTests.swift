import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// The bulk build that carries references through the radix sort and makes keys again from
/// their bits (``IndexExactBuild``) takes exactly the indexes whose keys its bits hold whole,
/// of objects with integer references, and builds what inserting one at a time builds.
@Suite struct IndexExactBuildTests {
    static func definition(_ name: String) throws -> IndexDefinition {
        let model = try IndexFixture.model(indexed: true)
        let item = try #require(model.entity(named: "Item"))
        return try #require(IndexDefinition.all(of: item).first { $0.name == name })
    }

    static func nodes(_ values: [Value], in definition: IndexDefinition) throws -> [ObjectSnapshot] {
        try IndexBulkBuildTests.nodes(values, at: definition.elements[0].propertyIndex, model: try IndexFixture.model(indexed: true))
    }

    @Test func itTakesIntegersAndShortASCIIStringsAndLeavesEveryOtherIndexToTheGeneralBuild() throws {
        let byI = try Self.definition("byI"), byS = try Self.definition("byS")
        let taken: [(IndexDefinition, [Value])] = [
            (byI, []),
            (byI, [.null, .null]),
            (byI, [.int(3), .int(-1), .int(.min), .int(.max), .null, .int(3), .bool(true)]),
            (byI, [.int(2), .double(.nan), .null, .int(1), .double(.nan)]),  // NaN after the numbers
            (byS, [.string("key 10"), .string(""), .string("b"), .null, .string("0123456789abcdef"), .string("key 10")]),
        ]
        for (definition, values) in taken {
            let nodes = try Self.nodes(values, in: definition)
            for order in [nodes, nodes.shuffled()] {  // in reference order (a store's table), and not
                let exact = IndexExactBuild.build(definition, count: order.count) { body in for node in order { body(node) } }
                let built = try #require(exact, "\(values)")
                var inserted = SnapshotIndex(definition, snapshots: [])
                for node in nodes { inserted.apply(old: nil, new: node) }
                var builtEntries: [SnapshotIndexEntry] = []
                built.tree.walk(nil, backwards: false) { builtEntries.append($0); return true }
                let insertedEntries = IndexBulkBuildTests.entries(inserted)
                #expect(builtEntries.map(\.reference) == insertedEntries.map(\.reference))
                #expect(builtEntries.map { IndexBulkBuildTests.exactly($0.key) } == insertedEntries.map { IndexBulkBuildTests.exactly($0.key) },
                        "\(values)")
                #expect(built.nanCount == inserted.nanCount && built.unindexedCount == inserted.unindexedCount)
            }
        }
        let left: [(IndexDefinition, [Value])] = [
            (byI, [.int(1), .double(1.5)]),                              // a double: -0 and 0 share their bits
            (byS, [.string("b"), .string("0123456789abcdefg")]),        // longer than 16 bytes
            (byS, [.string("é")]),                                      // not ASCII
            (byS, [.string("ab\u{0}")]),                                // a NUL: "ab" and "ab\0" share their bits
            (byS, [.string("a"), .double(.nan)]),                       // NaN sorts before strings
            (byS, [.string("a"), .int(1)]),                             // two kinds
            (try Self.definition("byT"), [.date(Date(timeIntervalSinceReferenceDate: 1))]),
            (try Self.definition("byCW"), [.int(1)]),                   // two elements
        ]
        for (definition, values) in left {
            let nodes = try Self.nodes(values, in: definition)
            let exact = IndexExactBuild.build(definition, count: nodes.count) { body in for node in nodes { body(node) } }
            #expect(exact == nil, "\(values)")
        }
    }

    @Test func itLeavesAnIndexOfObjectsWithStringReferencesToTheGeneralBuild() throws {
        let byI = try Self.definition("byI")
        let nodes = try Self.nodes([.int(1), .int(2)], in: byI).enumerated().map { n, node in
            ObjectSnapshot(objectID: ObjectID(entity: node.objectID.entity, store: .interned("bulk"),
                                              reference: n == 0 ? .int(1) : .string("two")),
                           version: 1, values: node.values)
        }
        let exact = IndexExactBuild.build(byI, count: nodes.count) { body in for node in nodes { body(node) } }
        #expect(exact == nil)
        #expect(IndexBulkBuildTests.entries(SnapshotIndex(byI, snapshots: nodes)).map(\.reference) == [.int(1), .string("two")])
    }

    /// The bits of a string, byte by byte: the first 16 bytes big-endian, when they and the
    /// 17th are ASCII; whole when at most 16 bytes without NUL.
    static func referenceBits(_ bytes: [UInt8]) -> (high: UInt64, low: UInt64, isWhole: Bool)? {
        var high: UInt64 = 0, low: UInt64 = 0
        for (offset, byte) in bytes.prefix(17).enumerated() {
            if byte >= 0x80 { return nil }
            if offset < 8 { high |= UInt64(byte) << (56 - 8 * offset) } else if offset < 16 { low |= UInt64(byte) << (56 - 8 * (offset - 8)) }
        }
        return (high, low, bytes.count <= 16 && !bytes.prefix(16).contains(0))
    }

    @Test func theBitsOfAStringReadAWordAtATimeAreThoseReadAByteAtATime() {
        var rng = SplitMix64(seed: 41)
        let pool: [UInt8] = [0, 1, 0x20, 0x41, 0x61, 0x7F, 0x80, 0xC3, 0xA9, 0xFF]
        for length in 0...24 {
            for _ in 0..<300 {
                // Mostly ASCII, sometimes one byte of the pool anywhere.
                var bytes = (0..<length).map { _ in UInt8.random(in: 0x21...0x7E, using: &rng) }
                if length > 0, Bool.random(using: &rng) { bytes[Int.random(in: 0..<length, using: &rng)] = pool[Int.random(in: 0..<pool.count, using: &rng)] }
                let bits = bytes.withUnsafeBufferPointer { RadixItem.bits(ofASCII: $0) }
                let expected = Self.referenceBits(bytes)
                #expect(bits?.high == expected?.high && bits?.low == expected?.low && bits?.isWhole == expected?.isWhole, "\(bytes)")
            }
        }
    }
}
