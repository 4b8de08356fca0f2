import Foundation
import Testing
@testable import GraphCore

/// The model file keys that carry what Xcode models hold: transient attributes, value rules,
/// uniqueness constraints, fetch indexes, configurations, fetch requests, user info, version
/// hash modifiers (`docs/MODEL.md`).
@Suite struct ModelFileKeysTests {
    private func load(_ json: String) throws -> ObjectModel {
        try ObjectModel(json: Data(json.utf8), path: "keys.json")
    }

    private func loadError(_ json: String) -> String? {
        do {
            _ = try load(json)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static let full = #"""
        {"entities": [
          {"name": "Task", "userInfo": {"k": "v"}, "versionHashModifier": "2",
           "attributes": [
             {"name": "title", "type": "string", "minValue": 1, "maxValue": 80, "regularExpression": "[^\\n]+"},
             {"name": "priority", "type": "int16", "minValue": 0, "maxValue": 9, "default": 0},
             {"name": "isEditing", "type": "bool", "transient": true, "optional": true},
             {"name": "icon", "type": "binary", "optional": true, "valueTransformerName": "T", "customClassName": "C"},
             {"name": "search", "type": "string", "optional": true, "derivation": "canonical:(title)"}
           ],
           "uniquenessConstraints": [["title"]],
           "fetchIndexes": [{"name": "byPriority", "elements": [{"property": "priority", "order": "descending"},
                                                                 {"expression": "length:(title)", "type": "rTree"}]}]}
        ],
        "configurations": {"Default": ["Task"]},
        "fetchRequests": [{"name": "urgent", "entity": "Task", "predicate": "priority >= $level", "fetchLimit": 5}],
        "userInfo": {"app": "todo"}}
        """#

    @Test func everyKeyIsReadAndWrittenBack() throws {
        let model = try load(Self.full)
        let task = try #require(model.entity(named: "Task"))
        #expect(task.userInfo == ["k": "v"] && task.versionHashModifier == "2")
        #expect(task.uniquenessConstraints == [["title"]])
        #expect(task.fetchIndexes == [FetchIndexDescription(name: "byPriority", elements: [
            .init(.property("priority"), ascending: false), .init(.expression("length:(title)"), kind: .rTree),
        ])])
        #expect(task.transientAttributes.map(\.name) == ["isEditing"])
        #expect(task.ownAttributes.first { $0.name == "icon" }?.valueTransformerName == "T")
        #expect(task.ownAttributes.first { $0.name == "search" }?.derivationExpression == "canonical:(title)")
        #expect(model.configurations == ["Default": ["Task"]])
        #expect(model.fetchRequestTemplates["urgent"]?.fetchLimit == 5)
        #expect(model.userInfo == ["app": "todo"])
        let again = try ObjectModel(json: model.jsonRepresentation())
        #expect(again.jsonRepresentation() == model.jsonRepresentation())
        #expect(again.versionHash == model.versionHash)
    }

    @Test func aTransientAttributeIsNeitherStoredNorSettable() throws {
        let container = try PersistentContainer.inMemory(model: load(Self.full))
        let task = try container.viewContext.insert("Task", values: ["title": "a"])
        #expect(throws: GraphError.unknownKey(entity: "Task", key: "isEditing")) { try task.set("isEditing", true) }
        #expect(task.entity.properties.map(\.name) == ["title", "priority", "icon", "search"])
    }

    @Test func aTransientAttributeStillTakesItsName() {
        let json = #"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "bool", "transient": true}, {"name": "x", "type": "string"}]}]}"#
        #expect(loadError(json) == "entity 'A' defines property 'x' twice (or again after its parent)")
    }

    @Test func badNewKeysAreRefusedWithTheirPlace() {
        #expect(loadError(#"{"entities": [{"name": "A", "uniquenessConstraints": [["nope"]]}]}"#)
                == "entity 'A': a uniqueness constraint names 'nope', which is not a stored property of the entity")
        #expect(loadError(#"{"entities": [{"name": "A", "fetchIndexes": [{"name": "i", "elements": [{"property": "p", "type": "hash"}]}]}]}"#)?
            .contains("entities[0].fetchIndexes[0].elements[0].type: unknown index type 'hash'") == true)
        #expect(loadError(#"{"entities": [{"name": "A", "fetchIndexes": [{"name": "i", "elements": []}]}]}"#)
                == "entity 'A': fetch index 'i' has no elements")
        #expect(loadError(#"{"entities": [{"name": "A"}], "configurations": {"C": ["B"]}}"#)
                == "configuration 'C' names entity 'B', which the model does not define")
        #expect(loadError(#"{"entities": [{"name": "A"}], "fetchRequests": [{"name": "f", "entity": "A", "predicate": "x =="}]}"#)?
            .hasPrefix("model file keys.json: fetchRequests[0].predicate:") == true)
        #expect(loadError(#"{"entities": [{"name": "A"}], "fetchRequests": [{"name": "f", "entity": "B"}]}"#)
                == "fetch request 'f' names entity 'B', which the model does not define")
        #expect(loadError(#"{"entities": [{"name": "A", "attributes": [{"name": "s", "type": "string", "minValue": "x"}]}]}"#)
                == "A.s: minValue \"x\" is not a length (a whole number)")
    }

    @Test func versionHashModifiersChangeOnlyTheirEntitysHash() throws {
        let plain = try load(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "string"}]}, {"name": "B"}]}"#)
        let modified = try load(#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "string", "versionHashModifier": "1"}]}, {"name": "B"}]}"#)
        #expect(plain.entityVersionHashes["A"] != modified.entityVersionHashes["A"])
        #expect(plain.entityVersionHashes["B"] == modified.entityVersionHashes["B"])
    }
}

/// A model refused for a cycle of parents leaves no entity behind.
@Suite struct ParentCycleTests {
    @Test func entitiesOfARefusedParentCycleAreFreed() {
        weak var first: EntityDescription?
        weak var second: EntityDescription?
        do {
            let a = EntityDescription("A", parent: "B")
            let b = EntityDescription("B", parent: "A")
            first = a
            second = b
            #expect(throws: ModelError.parentCycle(["A", "B", "A"])) { try ObjectModel(entities: [a, b]) }
        }
        #expect(first == nil && second == nil)
    }
}
