import Foundation
import Testing
@testable import GraphCore

@Suite("Migration: relationships made inverses")
struct MigrationInverseTests {
    typealias N = MigrationNodes

    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Album", relationships: [RelationshipDescription("songs", destination: "Song", inverse: nil, toMany: true)]),
            EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Album", inverse: nil)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Album", relationships: [RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true)]),
            EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")]),
        ])
        return (v1, v2)
    }

    @Test("two relationships declared inverses are kept when their sides agree")
    func agreeingSidesAreKept() throws {
        let (v1, v2) = try Self.models()
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let migrated = try mapping.migrate([
            try N.node(v1, "Album", 1, ["songs": .objects([try N.id(v1, "Song", 2)])]),
            try N.node(v1, "Song", 2, ["album": .object(try N.id(v1, "Album", 1))]),
        ])
        #expect(try N.find(migrated, 2).value(forKey: "album") == .object(try N.id(v2, "Album", 1)))
    }

    @Test("two relationships declared inverses are refused where their sides disagree, naming the objects")
    func disagreeingSidesAreRefused() throws {
        let (v1, v2) = try Self.models()
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let error = try #require(throws: MigrationError.self) {
            try mapping.migrate([
                try N.node(v1, "Album", 1, ["songs": .objects([try N.id(v1, "Song", 2)])]),
                try N.node(v1, "Song", 2),
            ])
        }
        #expect(error.description.contains("entity Album, property \"songs\": object 1: holds Song 2, whose \"album\" does not hold it back"))
    }
}

@Suite("Migration: relationship destinations within a hierarchy")
struct MigrationDestinationTests {
    typealias N = MigrationNodes

    static func model(ownerDestination: String) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Animal", attributes: [AttributeDescription("name", .string)]),
            EntityDescription("Dog", parent: "Animal"),
            EntityDescription("Person", relationships: [RelationshipDescription("pet", destination: ownerDestination, inverse: nil)]),
        ])
    }

    @Test("a relationship whose destination becomes the parent entity keeps its objects")
    func destinationWidenedToParent() throws {
        let v1 = try Self.model(ownerDestination: "Dog"), v2 = try Self.model(ownerDestination: "Animal")
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Person")?.properties.first?.changes == [.destinationChanged(from: "Dog", to: "Animal")])
        let migrated = try mapping.migrate([try N.node(v1, "Dog", 1, ["name": "Rex"]),
                                            try N.node(v1, "Person", 2, ["pet": .object(try N.id(v1, "Dog", 1))])])
        #expect(try N.find(migrated, 2).value(forKey: "pet") == .object(try N.id(v2, "Dog", 1)))
    }

    @Test("a relationship whose destination becomes a sub-entity refuses the objects of other kinds, naming them")
    func destinationNarrowedToSubentity() throws {
        let v1 = try Self.model(ownerDestination: "Animal"), v2 = try Self.model(ownerDestination: "Dog")
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(throws: Never.self) {
            try mapping.migrate([try N.node(v1, "Dog", 1, ["name": "Rex"]), try N.node(v1, "Person", 2, ["pet": .object(try N.id(v1, "Dog", 1))])])
        }
        let error = try #require(throws: MigrationError.self) {
            try mapping.migrate([try N.node(v1, "Animal", 1, ["name": "Cat"]), try N.node(v1, "Person", 2, ["pet": .object(try N.id(v1, "Animal", 1))])])
        }
        #expect(error.description.contains("entity Person, property \"pet\": object 2: holds Animal 1, which is not a Dog"))
    }
}
