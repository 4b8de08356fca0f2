import Foundation
import Testing
@testable import GraphCore

/// Builds nodes of a model by property name, for migration tests.
struct MigrationNodes {
    static let store = "00000000-0000-0000-0000-00000000abcd"

    /// A node of `entity` with `values` by name; other properties get their initial value.
    static func node(_ model: ObjectModel, _ entity: String, _ reference: Int64, version: Int64 = 1,
                     _ values: [String: Value] = [:]) throws -> ObjectSnapshot {
        let description = try #require(model.entity(named: entity))
        let id = ObjectID(entity: description, storeIdentifier: store, reference: .int(reference))
        let row = description.properties.map { property -> Value in
            if let value = values[property.name] { return value }
            return MappingInference.initialValue(of: property)
        }
        return ObjectSnapshot(objectID: id, version: version, values: row)
    }

    /// The ID of an object of `entity` in `model`.
    static func id(_ model: ObjectModel, _ entity: String, _ reference: Int64) throws -> ObjectID {
        ObjectID(entity: try #require(model.entity(named: entity)), storeIdentifier: store, reference: .int(reference))
    }

    /// The migrated node with this reference.
    static func find(_ nodes: [ObjectSnapshot], _ reference: Int64) throws -> ObjectSnapshot {
        try #require(nodes.first { $0.objectID.referenceObject == .int(reference) })
    }
}

@Suite("Migration: inferring the lightweight mapping")
struct MigrationInferenceTests {
    typealias N = MigrationNodes

    static func song(_ attributes: [AttributeDescription], renaming: String? = nil, name: String = "Song") -> EntityDescription {
        EntityDescription(name, attributes: attributes, renamingIdentifier: renaming)
    }

    @Test("an added entity and added attributes take their default, or nil when optional")
    func addedEntityAndAttributes() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string)])])
        let v2 = try ObjectModel(entities: [
            Self.song([AttributeDescription("title", .string), AttributeDescription("plays", .int64, defaultValue: 7),
                       AttributeDescription("notes", .string, isOptional: true)]),
            EntityDescription("Playlist", attributes: [AttributeDescription("name", .string)]),
        ])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Playlist")?.sourceName == nil)
        let migrated = try mapping.migrate([try N.node(v1, "Song", 1, ["title": "a"])])
        let song = try N.find(migrated, 1)
        #expect(song.value(forKey: "title") == "a")
        #expect(song.value(forKey: "plays") == 7)
        #expect(song.value(forKey: "notes") == .null)
    }

    @Test("an added required attribute without a default is refused, naming entity and property")
    func addedRequiredWithoutDefaultIsRefused() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string), AttributeDescription("plays", .int64)])])
        #expect(throws: MigrationError.notLightweight(from: MigrationMapping.label(of: v1), to: MigrationMapping.label(of: v2), refusals: [
            MigrationRefusal(entity: "Song", property: "plays",
                             reason: "added as a required attribute without a default value: give it a default or make it optional"),
        ])) { try MigrationMapping.infer(from: v1, to: v2) }
    }

    @Test("removed entities and properties drop their objects, values and the references to them")
    func removedEntityAndProperty() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("lyrics", .string, isOptional: true)],
                              relationships: [RelationshipDescription("tags", destination: "Tag", inverse: nil, toMany: true),
                                              RelationshipDescription("next", destination: "Song", inverse: nil)]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("next", destination: "Song", inverse: nil)]),
        ])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.removedEntities == ["Tag"])
        #expect(mapping.entity(named: "Song")?.removedProperties.sorted() == ["lyrics", "tags"])
        let migrated = try mapping.migrate([
            try N.node(v1, "Song", 1, ["title": "a", "lyrics": "la", "tags": .objects([try N.id(v1, "Tag", 3)]), "next": .object(try N.id(v1, "Song", 2))]),
            try N.node(v1, "Song", 2, ["title": "b"]),
            try N.node(v1, "Tag", 3, ["name": "t"]),
        ], acceptingLosses: .all)
        #expect(migrated.count == 2)
        #expect(try N.find(migrated, 1).value(forKey: "next") == .object(try N.id(v2, "Song", 2)))
        #expect(try N.find(migrated, 1).objectID.entity === v2.entity(named: "Song"))
    }

    @Test("an entity and its properties renamed by renaming identifier keep their objects and values")
    func renamedByRenamingIdentifier() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Track", attributes: [AttributeDescription("name", .string)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string, renamingIdentifier: "name")],
                              renamingIdentifier: "Track"),
        ])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Song")?.sourceName == "Track")
        #expect(mapping.entity(named: "Song")?.properties.first?.changes == [.renamed(from: "name")])
        #expect(mapping.removedEntities.isEmpty)
        let migrated = try mapping.migrate([try N.node(v1, "Track", 5, version: 4, ["name": "x"])])
        let song = try N.find(migrated, 5)
        #expect(song.objectID.entityName == "Song")
        #expect(song.value(forKey: "title") == "x")
        #expect(song.version == 4)
    }

    @Test("optional to required with a default gives nil values the default")
    func optionalToRequiredWithDefault() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("plays", .int64, isOptional: true)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("plays", .int64, defaultValue: 0)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Song")?.properties.first?.changes == [.madeRequired(default: 0)])
        let migrated = try mapping.migrate([try N.node(v1, "Song", 1, ["plays": .null]), try N.node(v1, "Song", 2, ["plays": 5])])
        #expect(try N.find(migrated, 1).value(forKey: "plays") == 0)
        #expect(try N.find(migrated, 2).value(forKey: "plays") == 5)
    }

    @Test("optional to required without a default is refused")
    func optionalToRequiredWithoutDefaultIsRefused() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("plays", .int64, isOptional: true)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("plays", .int64)])])
        let error = try #require(throws: MigrationError.self) { try MigrationMapping.infer(from: v1, to: v2) }
        #expect(error.description.contains("entity Song, property \"plays\": made required without a default value"))
    }

    @Test("required to optional keeps the values")
    func requiredToOptional() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string, isOptional: true)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Song")?.properties.first?.changes == [.madeOptional])
        #expect(try N.find(try mapping.migrate([try N.node(v1, "Song", 1, ["title": "a"])]), 1).value(forKey: "title") == "a")
    }

    @Test("numeric widening converts every value exactly")
    func numericWidening() throws {
        let v1 = try ObjectModel(entities: [Self.song([
            AttributeDescription("a", .int16), AttributeDescription("b", .int32), AttributeDescription("c", .float),
            AttributeDescription("d", .int32), AttributeDescription("e", .int64), AttributeDescription("f", .int64),
        ])])
        let v2 = try ObjectModel(entities: [Self.song([
            AttributeDescription("a", .int64), AttributeDescription("b", .int64), AttributeDescription("c", .double),
            AttributeDescription("d", .double), AttributeDescription("e", .decimal), AttributeDescription("f", .double),
        ])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let migrated = try mapping.migrate([try N.node(v1, "Song", 1, ["a": -3, "b": 70_000, "c": 1.5, "d": 9, "e": .int(Int64.max), "f": .int(1 << 53)])])
        let song = try N.find(migrated, 1)
        #expect(song.value(forKey: "a") == -3)
        #expect(song.value(forKey: "b") == 70_000)
        #expect(song.value(forKey: "c") == 1.5)
        #expect(song.value(forKey: "d") == .double(9))
        #expect(song.value(forKey: "e") == .decimal(Decimal(Int64.max)))
        #expect(song.value(forKey: "f") == .double(9_007_199_254_740_992))
    }

    @Test("int64 to double is refused for the objects whose value a double cannot hold exactly, naming them")
    func wideningThatLosesPrecisionIsRefusedOnTheData() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("f", .int64)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("f", .double)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let error = try #require(throws: MigrationError.self) {
            try mapping.migrate([try N.node(v1, "Song", 1, ["f": 3]), try N.node(v1, "Song", 2, ["f": .int((1 << 53) + 1)])])
        }
        #expect(error == .dataDoesNotFit(from: mapping.sourceLabel, to: mapping.destinationLabel, refusals: [
            MigrationRefusal(entity: "Song", property: "f", reason: "object 2: the value does not convert exactly from int64 to double"),
        ]))
    }

    @Test("every change that is not lightweight is refused at once, each named with its reason")
    func everyRefusalIsListed() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string), AttributeDescription("plays", .int64),
                AttributeDescription("rating", .double), AttributeDescription("album", .string),
            ]),
            EntityDescription("Album", attributes: [AttributeDescription("year", .int32)]),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .int64), AttributeDescription("plays", .int32),
                AttributeDescription("rating", .float),
            ], relationships: [RelationshipDescription("album", destination: "Album", inverse: nil)]),
            EntityDescription("Album", attributes: [AttributeDescription("year", .string)]),
        ])
        let error = try #require(throws: MigrationError.self) { try MigrationMapping.infer(from: v1, to: v2) }
        guard case .notLightweight(_, _, let refusals) = error else { Issue.record("\(error)"); return }
        #expect(refusals.map(\.description) == [
            "entity Song, property \"title\": type changed from string to int64: only numeric widening is lightweight",
            "entity Song, property \"plays\": type changed from int64 to int32: narrowing is not lightweight (values might not fit); keep the wider type",
            "entity Song, property \"rating\": type changed from double to float: narrowing is not lightweight (values might not fit); keep the wider type",
            "entity Song, property \"album\": was an attribute and is now a relationship: not lightweight",
            "entity Album, property \"year\": type changed from int32 to string: only numeric widening is lightweight",
        ])
    }

    @Test("a to-one relationship becomes to-many holding its one object")
    func toOneToMany() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil, toMany: true)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let migrated = try mapping.migrate([try N.node(v1, "Song", 1, ["next": .object(try N.id(v1, "Song", 2))]), try N.node(v1, "Song", 2)])
        #expect(try N.find(migrated, 1).value(forKey: "next") == .objects([try N.id(v2, "Song", 2)]))
        #expect(try N.find(migrated, 2).value(forKey: "next") == .objects([]))
    }

    @Test("a to-many relationship becomes to-one when no object holds more than one")
    func toManyToOne() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil, toMany: true)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let migrated = try mapping.migrate([try N.node(v1, "Song", 1, ["next": .objects([try N.id(v1, "Song", 2)])]), try N.node(v1, "Song", 2)])
        #expect(try N.find(migrated, 1).value(forKey: "next") == .object(try N.id(v2, "Song", 2)))
        #expect(try N.find(migrated, 2).value(forKey: "next") == .null)
    }

    @Test("a to-many relationship holding several objects is refused as to-one, naming the objects")
    func toManyToOneRefusedOnTheData() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil, toMany: true)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("next", destination: "Song", inverse: nil)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let two = [try N.id(v1, "Song", 1), try N.id(v1, "Song", 2)]
        let error = try #require(throws: MigrationError.self) {
            try mapping.migrate([try N.node(v1, "Song", 1, ["next": .objects(two)]), try N.node(v1, "Song", 2), try N.node(v1, "Song", 3, ["next": .objects(two)])])
        }
        #expect(error.description.contains("entity Song, property \"next\": objects 1, 3: holds more than one object, so the relationship cannot become to-one"))
    }

    @Test("an entity moved under a new parent keeps its objects and values")
    func inheritanceChange() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Dog", attributes: [AttributeDescription("name", .string), AttributeDescription("barks", .bool)])])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Animal", isAbstract: true, attributes: [AttributeDescription("name", .string),
                                                                        AttributeDescription("legs", .int16, defaultValue: 4)]),
            EntityDescription("Dog", parent: "Animal", attributes: [AttributeDescription("barks", .bool)]),
        ])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(mapping.entity(named: "Dog")?.changes == ["parent changed from none to Animal"])
        let dog = try N.find(try mapping.migrate([try N.node(v1, "Dog", 1, version: 3, ["name": "Rex", "barks": true])]), 1)
        #expect(dog.value(forKey: "name") == "Rex")
        #expect(dog.value(forKey: "barks") == true)
        #expect(dog.value(forKey: "legs") == 4)
        #expect(dog.version == 3)
    }

    @Test("an entity that becomes abstract is refused while it has objects of its own")
    func becomingAbstractIsRefusedWithObjects() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Animal", attributes: [AttributeDescription("name", .string)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Animal", isAbstract: true, attributes: [AttributeDescription("name", .string)])])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        #expect(try mapping.migrate([]).isEmpty)
        let error = try #require(throws: MigrationError.self) { try mapping.migrate([try N.node(v1, "Animal", 1, ["name": "x"])]) }
        #expect(error.description.contains("entity Animal: object 1: the entity became abstract"))
    }

    @Test("a delete rule, count limits or a default changed changes no data")
    func noDataChanges() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Song", attributes: [AttributeDescription("plays", .int64, defaultValue: 0)],
            relationships: [RelationshipDescription("next", destination: "Song", inverse: nil, toMany: true)])])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", attributes: [AttributeDescription("plays", .int64, defaultValue: 1)],
            relationships: [RelationshipDescription("next", destination: "Song", inverse: nil, toMany: true, deleteRule: .cascade, maxCount: 3)])])
        #expect(v1.versionHash == v2.versionHash)
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let changes = try #require(mapping.entity(named: "Song")).properties.flatMap(\.changes)
        #expect(changes.allSatisfy { if case .noDataChange = $0 { return true }; return false })
        #expect(changes.count == 3)
        let song = try N.node(v1, "Song", 1, version: 2, ["plays": 5, "next": .objects([try N.id(v1, "Song", 1)])])
        let migrated = try N.find(try mapping.migrate([song]), 1)
        #expect(migrated.value(forKey: "plays") == 5)
        #expect(migrated.value(forKey: "next") == .objects([try N.id(v2, "Song", 1)]))
    }

    @Test("a new inverse relationship is filled from the existing side")
    func newInverseIsDerived() throws {
        let v1 = try ObjectModel(entities: [
            EntityDescription("Album", relationships: [RelationshipDescription("songs", destination: "Song", inverse: nil, toMany: true)]),
            EntityDescription("Song"),
        ])
        let v2 = try ObjectModel(entities: [
            EntityDescription("Album", relationships: [RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true)]),
            EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")]),
        ])
        let mapping = try MigrationMapping.infer(from: v1, to: v2)
        let migrated = try mapping.migrate([
            try N.node(v1, "Album", 1, ["songs": .objects([try N.id(v1, "Song", 2), try N.id(v1, "Song", 3)])]),
            try N.node(v1, "Song", 2), try N.node(v1, "Song", 3), try N.node(v1, "Song", 4),
        ])
        #expect(try N.find(migrated, 2).value(forKey: "album") == .object(try N.id(v2, "Album", 1)))
        #expect(try N.find(migrated, 3).value(forKey: "album") == .object(try N.id(v2, "Album", 1)))
        #expect(try N.find(migrated, 4).value(forKey: "album") == .null)
    }

    @Test("a relationship whose destination becomes an unrelated entity is refused")
    func unrelatedDestinationIsRefused() throws {
        let v1 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Album", inverse: nil)]),
                                            EntityDescription("Album"), EntityDescription("Artist")])
        let v2 = try ObjectModel(entities: [EntityDescription("Song", relationships: [RelationshipDescription("album", destination: "Artist", inverse: nil)]),
                                            EntityDescription("Album"), EntityDescription("Artist")])
        let error = try #require(throws: MigrationError.self) { try MigrationMapping.infer(from: v1, to: v2) }
        #expect(error.description.contains("entity Song, property \"album\": destination changed from Album to Artist"))
    }

    @Test("the store's version is found among candidate models by its recorded hashes")
    func sourceVersionLookup() throws {
        let v1 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string)])])
        let v2 = try ObjectModel(entities: [Self.song([AttributeDescription("title", .string, isOptional: true)])])
        let v3 = try ObjectModel(entities: [Self.song([AttributeDescription("name", .string, isOptional: true)])])
        #expect(ObjectModel.index(matching: v2.entityVersionHashes, in: [v1, v2, v3]) == 1)
        #expect(ObjectModel.index(matching: ["Song": "nope"], in: [v1, v2, v3]) == nil)
    }
}
