import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The import's line decoder: its fast path (parser events straight into values) takes the
/// lines an export writes and gives exactly what the `JSONValue` tree gives; every other line
/// goes through the tree, which accepts or refuses it as before.
@Suite struct ImportDecoderTests {
    static let store = "8f0c2e7a-5b1d-4c3e-9a6f-0d2b4e6f8a1c"
    let model: ObjectModel

    init() throws { model = try CatalogModel.make() }

    static func id(_ entity: String, _ reference: Int) -> String { "\"graph://\(store)/\(entity)/\(reference)\"" }

    /// Lines as an export writes them (every value kind, escapes, empty and full lists).
    static let exportLines = [
        #"{"id":\#(id("Item", 1)),"entity":"Item","version":3,"values":{"name":"caf\u00e9 \"quoted\"\n","count":-12,"small":32767,"medium":-2147483648,"large":9223372036854775807,"ratio":0.1,"weight":1.5,"price":"12345678901234567890.123","note":null,"active":true,"added":"2024-05-01T12:30:00.250Z","blob":"AAEC/w==","uid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","link":"https://example.com/a?b=c","score":"NaN","owner":\#(id("Owner", 2)),"twin":\#(id("Item", 1)),"parts":[\#(id("Part", 4)),\#(id("Part", 3))],"tags":[],"pet":\#(id("Dog", 5)),"favorite":null}}"#,
        #"{"id":\#(id("Owner", 2)),"entity":"Owner","version":1,"values":{"name":"ünïcødé","items":[\#(id("Item", 1))]}}"#,
        #"{"id":\#(id("Dog", 5)),"entity":"Dog","version":1,"values":{"name":"Rex","barks":false,"keepers":[\#(id("Item", 1))]}}"#,
        #"{"id":\#(id("Item", 9)),"entity":"Item","version":1,"values":{"name":"few","active":false,"ratio":-1e-7,"price":42}}"#,
    ]

    @Test func everyLineAnExportWritesTakesTheFastPathAndGivesWhatTheTreeGives() throws {
        let events = ImportLineEvents(model: model, storeUUID: Self.store)
        #expect(events.isUsable)
        var decoder = ImportDecoder(model: model, storeUUID: Self.store)
        for (index, line) in Self.exportLines.enumerated() {
            let fast = try #require(Self.bytes(line) { events.decode($0, line: index + 1) }, "the fast path takes line \(index + 1)")
            let tree = try Self.bytes(line) { try decoder.decodeThroughTree($0, line: index + 1) }
            #expect(fast.entity === tree.entity)
            #expect(fast.reference == tree.reference)
            #expect(fast.version == tree.version)
            #expect(fast.values == tree.values, "line \(index + 1)")
            #expect(fast.line == index + 1)
        }
    }

    @Test func aLineInAnotherOrderIsLeftToTheTreeAndDecodesAlike() throws {
        let events = ImportLineEvents(model: model, storeUUID: Self.store)
        var decoder = ImportDecoder(model: model, storeUUID: Self.store)
        let canonical = #"{"id":\#(Self.id("Owner", 2)),"entity":"Owner","version":1,"values":{"name":"n","items":[\#(Self.id("Item", 1))]}}"#
        let reordered = #"{"values":{"items":[\#(Self.id("Item", 1))],"name":"n"},"version":1,"entity":"Owner","id":\#(Self.id("Owner", 2))}"#
        #expect(Self.bytes(reordered) { events.decode($0, line: 1) } == nil, "values before the ID: not the fast path's")
        let first = try Self.bytes(canonical) { try decoder.decode($0, line: 1) }
        let second = try Self.bytes(reordered) { try decoder.decode($0, line: 1) }
        #expect(first.values == second.values)
        #expect(first.reference == second.reference && first.version == second.version && first.entity === second.entity)
    }

    @Test func aBadLineIsRefusedWithTheTreesReason() throws {
        let events = ImportLineEvents(model: model, storeUUID: Self.store)
        var decoder = ImportDecoder(model: model, storeUUID: Self.store)
        let owner = Self.id("Owner", 2)
        let bad = [
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{"name":"n","name":"again"}}"#,  // a key twice
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{"name":12}}"#,                  // a number for a string
            #"{"id":\#(owner),"entity":"Owner","version":0,"values":{}}"#,                           // version 0
            #"{"id":\#(owner),"entity":"Item","version":1,"values":{}}"#,                            // entity and ID disagree
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{"items":[\#(Self.id("Tag", 3))]}}"#,  // a Tag among Items
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{"items":null}}"#,               // null for a to-many
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{"color":"red"}}"#,              // no such property
            #"{"id":"graph://00000000-0000-0000-0000-000000000000/Owner/2","entity":"Owner","version":1,"values":{}}"#,
            #"{"id":\#(owner),"entity":"Owner","version":1,"values":{}} {}"#,                        // two values
            #"{"id":\#(owner),"entity":"Owner","version":1.0,"values":{}}"#,
            #"{"id":\#(owner),"entity":"Owner","version":1}"#,
        ]
        for line in bad {
            #expect(Self.bytes(line) { events.decode($0, line: 1) } == nil, "the fast path leaves \(line)")
            var expected = ""
            do { _ = try Self.bytes(line) { try decoder.decodeThroughTree($0, line: 1) } } catch let error as ImportProblem { expected = error.reason }
            #expect(!expected.isEmpty, "the tree refuses \(line)")
            #expect(throws: ImportProblem.self) { try Self.bytes(line) { try decoder.decode($0, line: 1) } }
            do { _ = try Self.bytes(line) { try decoder.decode($0, line: 1) } } catch let error as ImportProblem { #expect(error.reason == expected) }
        }
    }

    static func bytes<T>(_ line: String, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        var copy = line
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }
}
