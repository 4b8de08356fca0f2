import Foundation
import Testing
@testable import GraphCore

/// Renames as Xcode writes them: its "Renaming ID" field is the `elementID` XML attribute,
/// which the model compiler makes the element's renaming identifier.
@Suite("Xcode models: renames through elementID")
struct XcodeRenameTests {
    static let renames = XcodeFixtures.own.appendingPathComponent("Renames.xcdatamodeld")

    @Test("elementID on an entity, an attribute and a relationship is read as its renaming identifier")
    func elementIDIsTheRenamingIdentifier() throws {
        let bundle = try ModelBundle(contentsOf: Self.renames)
        let model = try #require(bundle.model(named: "Renames 2"))
        let human = try #require(model.entity(named: "Human"))
        #expect(human.renamingIdentifier == "Person")
        #expect(human.property(named: "fullName")?.attribute?.renamingIdentifier == "name")
        #expect(human.property(named: "nickname")?.attribute?.renamingIdentifier == nil)
        #expect(human.property(named: "animals")?.relationship?.renamingIdentifier == "pets")
        #expect(model.entity(named: "Pet")?.property(named: "keeper")?.relationship?.renamingIdentifier == "owner")
    }

    @Test("the renaming identifier is not part of the version hash, as in Core Data")
    func theRenamingIdentifierIsNotHashed() throws {
        let xml = { (id: String) in """
            <model><entity name="A" \(id)><attribute name="x" optional="YES" attributeType="String" \(id)/></entity></model>
            """ }
        let plain = try XcodeFixtures.importing(xml("")).model
        let renamed = try XcodeFixtures.importing(xml("elementID=\"Old\"")).model
        let explicit = try XcodeFixtures.importing(xml("renamingIdentifier=\"Other\"")).model
        #expect(renamed.entity(named: "A")?.renamingIdentifier == "Old")
        #expect(plain.versionHash == renamed.versionHash)
        #expect(plain.versionHash == explicit.versionHash)
        #expect(plain.entityVersionHashes == renamed.entityVersionHashes)
    }

    @Test("renamingIdentifier wins over a different elementID, with a warning naming both")
    func renamingIdentifierWinsOverElementID() throws {
        let imported = try XcodeFixtures.importing("""
            <model><entity name="A" elementID="B" renamingIdentifier="C"><attribute name="x" optional="YES" attributeType="String"/></entity></model>
            """)
        #expect(imported.model.entity(named: "A")?.renamingIdentifier == "C")
        #expect(imported.notes.contains { $0.message.contains("renamingIdentifier=\"C\"") && $0.message.contains("elementID=\"B\"") })
    }

    @Test("the inferred mapping renames the entity, the attribute and both sides of the relationship")
    func theMappingRenamesEachKind() throws {
        let bundle = try ModelBundle(contentsOf: Self.renames)
        let mapping = try MigrationMapping.infer(from: try #require(bundle.model(named: "Renames")),
                                                 to: try #require(bundle.model(named: "Renames 2")))
        #expect(mapping.removedEntities.isEmpty)
        let human = try #require(mapping.entity(named: "Human"))
        #expect(human.sourceName == "Person")
        #expect(human.removedProperties.isEmpty)
        #expect(human.properties.first { $0.name == "fullName" }?.sourceName == "name")
        #expect(human.properties.first { $0.name == "animals" }?.sourceName == "pets")
        #expect(mapping.entity(named: "Pet")?.properties.first { $0.name == "keeper" }?.sourceName == "owner")
    }

    @Test("a migration through elementID renames keeps the objects, the values and the links")
    func aMigrationKeepsRenamedData() throws {
        typealias N = MigrationNodes
        let bundle = try ModelBundle(contentsOf: Self.renames)
        let v1 = try #require(bundle.model(named: "Renames"))
        let v2 = try #require(bundle.model(named: "Renames 2"))
        let nodes = [
            try N.node(v1, "Person", 1, ["name": "Ann", "nickname": "A", "pets": .objects([try N.id(v1, "Pet", 2)])]),
            try N.node(v1, "Pet", 2, ["title": "Rex", "owner": .object(try N.id(v1, "Person", 1))]),
        ]
        let migrated = try MigrationMapping.infer(from: v1, to: v2).migrate(nodes)
        let ann = try N.find(migrated, 1)
        let rex = try N.find(migrated, 2)
        #expect(ann.objectID.entityName == "Human")
        #expect(ann.value(forKey: "fullName") == "Ann")
        #expect(ann.value(forKey: "nickname") == "A")
        #expect(ann.value(forKey: "animals") == .objects([rex.objectID]))
        #expect(rex.value(forKey: "keeper") == .object(ann.objectID))
    }

    @Test("the real SampleModel bundle's ExpensiveSportCar → LuxuryCar rename keeps its objects")
    func theRealEntityRenameIsKept() throws {
        let bundle = try ModelBundle(contentsOf: XcodeFixtures.real.appendingPathComponent("bundles/SampleModel.xcdatamodeld"))
        let mapping = try MigrationMapping.infer(from: try #require(bundle.model(named: "SampleModel")),
                                                 to: try #require(bundle.model(named: "SampleModel2")))
        #expect(mapping.entity(named: "LuxuryCar")?.sourceName == "ExpensiveSportCar")
        #expect(!mapping.removedEntities.contains("ExpensiveSportCar"))
        let next = try MigrationMapping.infer(from: try #require(bundle.model(named: "SampleModel2")),
                                              to: try #require(bundle.model(named: "SampleModel3")))
        #expect(next.entity(named: "LuxuryCar")?.sourceName == "LuxuryCar")
    }
}
