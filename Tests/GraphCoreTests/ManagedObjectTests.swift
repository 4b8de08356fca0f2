import Foundation
import Testing
@testable import GraphCore

/// Reading and writing values by key, conversions and their errors, faults, object lookup by ID.
@Suite struct ManagedObjectTests {
    /// One entity with an attribute of every type (all optional) and a required one with a default.
    static func sampleModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Sample", attributes: [
                AttributeDescription("small", .int16, isOptional: true),
                AttributeDescription("medium", .int32, isOptional: true),
                AttributeDescription("large", .int64, isOptional: true),
                AttributeDescription("ratio", .float, isOptional: true),
                AttributeDescription("amount", .double, isOptional: true),
                AttributeDescription("price", .decimal, isOptional: true),
                AttributeDescription("flag", .bool, isOptional: true),
                AttributeDescription("when", .date, isOptional: true),
                AttributeDescription("blob", .binary, isOptional: true),
                AttributeDescription("token", .uuid, isOptional: true),
                AttributeDescription("link", .uri, isOptional: true),
                AttributeDescription("name", .string, defaultValue: "unnamed"),
            ]),
        ])
    }

    // MARK: - Values by key

    @Test func aNewObjectStartsWithTheDefaultValuesAndNilElsewhere() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(try song["plays"] == .int(0))
        #expect(try song["title"] == .null)
        #expect(try song["rating"] == .null)
        #expect(try song["album"] == .null)
        #expect(try song["composers"] == .objects([]))
        #expect(song.isInserted)
        #expect(!song.isFault)
        #expect(song.objectID.isTemporary)
        #expect(song.entity.name == "Song")
    }

    @Test func typedValuesOfEveryAttributeTypeReadBackAsWritten() throws {
        let container = try PersistentContainer.inMemory(model: Self.sampleModel())
        let context = container.viewContext
        let sample = try context.insert("Sample")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let data = Data([1, 2, 3])
        let uuid = UUID()
        let url = try #require(URL(string: "https://example.com/a"))
        try sample.set("small", Int16(-7))
        try sample.set("medium", Int32(70_000))
        try sample.set("large", Int64(1) << 40)
        try sample.set("ratio", Float(0.5))
        try sample.set("amount", 2.25)
        try sample.set("price", Decimal(string: "19.99") ?? 0)
        try sample.set("flag", true)
        try sample.set("when", date)
        try sample.set("blob", data)
        try sample.set("token", uuid)
        try sample.set("link", url)
        try sample.set("name", "n")

        #expect(try sample.get("small") as Int16 == -7)
        #expect(try sample.get("medium") as Int32 == 70_000)
        #expect(try sample.get("large") as Int64 == 1 << 40)
        #expect(try sample.get("ratio") as Float == 0.5)
        #expect(try sample.get("amount") as Double == 2.25)
        #expect(try sample.get("price") as Decimal == Decimal(string: "19.99"))
        #expect(try sample.get("flag") as Bool == true)
        #expect(try sample.get("when") as Date == date)
        #expect(try sample.get("blob") as Data == data)
        #expect(try sample.get("token") as UUID == uuid)
        #expect(try sample.get("link") as URL == url)
        #expect(try sample.get("name") as String == "n")
        // Any integer type that holds the value reads an integer attribute.
        #expect(try sample.get("small") as Int == -7)
        #expect(try sample.get("medium") as Int64 == 70_000)
    }

    @Test func theSubscriptReadsTheValueOfAKey() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("title", "Blue")
        try song.setValue(12, forKey: "plays")
        #expect(try song["title"] == "Blue")
        #expect(try song["plays"] == 12)
        #expect(try song.value(forKey: "title") == .string("Blue"))
    }

    @Test func optionalSwiftTypesReadNilAndWriteNil() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(try song.get("notes") as String? == nil)
        try song.set("notes", "live" as String?)
        #expect(try song.get("notes") as String? == "live")
        try song.set("notes", String?.none)
        #expect(try song["notes"] == .null)
        try song.setValue(nil, forKey: "rating")
        #expect(try song.get("rating") as Double? == nil)
    }

    @Test func readingAValueAsTheWrongSwiftTypeThrowsTypeMismatch() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("title", "Blue")
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "title", expected: "Int", got: "string")) {
            _ = try song.get("title") as Int
        }
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "plays", expected: "Bool", got: "integer")) {
            _ = try song.get("plays") as Bool
        }
    }

    @Test func writingAValueOfTheWrongTypeThrowsTypeMismatchAndKeepsTheOldValue() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("plays", 3)
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "plays", expected: "int64", got: "string")) {
            try song.set("plays", "three")
        }
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "title", expected: "string", got: "integer")) {
            try song.setValue(5, forKey: "title")
        }
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "rating", expected: "double", got: "bool")) {
            try song.set("rating", true)
        }
        #expect(try song["plays"] == 3)
    }

    @Test func anUnknownKeyThrowsUnknownKeyNamingTheEntityAndTheKey() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        let expected = GraphError.unknownKey(entity: "Song", key: "lyrics")
        #expect(throws: expected) { _ = try song["lyrics"] }
        #expect(throws: expected) { _ = try song.get("lyrics") as String }
        #expect(throws: expected) { try song.set("lyrics", "la la") }
        #expect(throws: expected) { _ = try song.object(forKey: "lyrics") }
        #expect(throws: expected) { _ = try song.objects(forKey: "lyrics") }
        #expect(expected.description.contains("'Song'"))
        #expect(expected.description.contains("'lyrics'"))
    }

    @Test func nilIntoARequiredAttributeThrowsRequiredValue() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("title", "Blue")
        #expect(throws: GraphError.requiredValue(entity: "Song", key: "title")) {
            try song.setValue(nil, forKey: "title")
        }
        #expect(throws: GraphError.requiredValue(entity: "Song", key: "plays")) {
            try song.set("plays", Int?.none)
        }
        #expect(try song["title"] == "Blue")
    }

    @Test func readingANilRequiredAttributeAsANonOptionalTypeThrowsRequiredValue() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(throws: GraphError.requiredValue(entity: "Song", key: "title")) {
            _ = try song.get("title") as String
        }
        #expect(try song.get("title") as String? == nil)
    }

    @Test func anInt16AttributeRefusesIntegersOutsideItsRange() throws {
        let container = try PersistentContainer.inMemory(model: Self.sampleModel())
        let context = container.viewContext
        let sample = try context.insert("Sample")
        try sample.set("small", Int(Int16.max))
        try sample.set("small", Int(Int16.min))
        #expect(try sample["small"] == .int(Int64(Int16.min)))
        #expect(throws: GraphError.typeMismatch(entity: "Sample", key: "small", expected: "int16", got: "integer")) {
            try sample.set("small", 32_768)
        }
        #expect(throws: GraphError.typeMismatch(entity: "Sample", key: "small", expected: "int16", got: "integer")) {
            try sample.set("small", -32_769)
        }
        #expect(throws: GraphError.typeMismatch(entity: "Sample", key: "medium", expected: "int32", got: "integer")) {
            try sample.set("medium", Int64(Int32.max) + 1)
        }
        #expect(try sample["small"] == .int(Int64(Int16.min)))
    }

    @Test func readingAnIntegerIntoATooNarrowSwiftTypeThrowsTypeMismatch() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("plays", 100_000)
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "plays", expected: "Int16", got: "integer")) {
            _ = try song.get("plays") as Int16
        }
        #expect(try song.get("plays") as Int32 == 100_000)
    }

    @Test func anIntegerWrittenIntoADoubleAttributeIsConvertedToADouble() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("rating", 4)
        #expect(try song["rating"] == .double(4))
        #expect(try song.get("rating") as Double == 4)
        let sampleContainer = try PersistentContainer.inMemory(model: Self.sampleModel())
        let sampleContext = sampleContainer.viewContext
        let sample = try sampleContext.insert("Sample")
        try sample.set("price", 12)
        #expect(try sample["price"] == .decimal(12))
        try sample.set("ratio", 3)
        #expect(try sample["ratio"] == .double(3))
    }

    @Test func aFloatAttributeKeepsOnlyFloatPrecision() throws {
        let container = try PersistentContainer.inMemory(model: Self.sampleModel())
        let context = container.viewContext
        let sample = try context.insert("Sample")
        try sample.set("ratio", 0.1 as Double)
        #expect(try sample["ratio"] == .double(Double(Float(0.1))))
        #expect(try sample.get("ratio") as Double != 0.1)
        #expect(try sample.get("ratio") as Float == Float(0.1))
        // A double attribute keeps the full precision.
        try sample.set("amount", 0.1 as Double)
        #expect(try sample.get("amount") as Double == 0.1)
    }

    @Test func relationshipAccessorsRefuseAttributesAndTheOtherCardinality() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "title", expected: "a relationship")) {
            _ = try song.object(forKey: "title")
        }
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "album", expected: "a to-many relationship")) {
            _ = try song.objects(forKey: "album")
        }
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "composers", expected: "a to-one relationship")) {
            try song.setObject(nil, forKey: "composers")
        }
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "album", expected: "object", got: "string")) {
            try song.setValue("Kind of Blue", forKey: "album")
        }
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "composers", expected: "objects", got: "object")) {
            try song.setValue(.object(song.objectID), forKey: "composers")
        }
    }

    @Test func insertWithValuesSetsAttributesAndRelationships() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What", "plays": 3, "album": .object(album.objectID)])
        #expect(try song["title"] == "So What")
        #expect(try song.object(forKey: "album") === album)
        #expect(try album.objects(forKey: "songs") == [song])
        #expect(throws: GraphError.unknownKey(entity: "Song", key: "lyrics")) {
            try context.insert("Song", values: ["lyrics": "la"])
        }
    }

    @Test func writingTheSameValueAgainIsNoChange() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("title", "Blue")
        try context.save()
        try song.set("title", "Blue")
        try song.set("plays", 0)
        #expect(!song.hasChanges)
        #expect(!context.hasChanges)
    }

    @Test func changedKeysAndCommittedValuesTellWhatChangedSinceTheSave() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        try song.set("title", "Blue")
        try context.save()
        #expect(try song.changedKeys().isEmpty)
        try song.set("title", "Green")
        try song.set("plays", 2)
        #expect(try song.changedKeys() == ["title", "plays"])
        #expect(try song.committedValues().value(forKey: "title") == "Blue")
        #expect(song.isUpdated)
        #expect(song.hasChanges)
    }

    // MARK: - Objects by ID and faults

    @Test func anObjectFetchedByIDInANewContextIsAFaultUntilAValueIsRead() throws {
        let container = try MusicModel.container()
        let writer = container.viewContext
        let song = try writer.insert("Song", values: ["title": "So What", "plays": 7])
        try writer.save()

        let reader = container.newContext()
        let fault = reader.object(with: song.objectID)
        #expect(fault.isFault)
        #expect(fault.description.contains("(fault)"))
        #expect(fault !== song)
        #expect(try fault["title"] == "So What")
        #expect(!fault.isFault)
        #expect(try fault.get("plays") as Int == 7)
        #expect(fault.version == 1)
        #expect(reader.object(with: song.objectID) === fault)
    }

    @Test func refreshTurnsAnObjectIntoAFaultThatReloadsTheStoreValues() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "So What"])
        try context.save()
        try song.set("title", "changed, not saved")
        try context.refresh(song, mergeChanges: false)
        #expect(song.isFault)
        #expect(!song.hasChanges)
        #expect(try song["title"] == "So What")
        #expect(!song.isFault)
    }

    @Test func aFetchInAnotherContextSeesTheSavedValues() throws {
        let container = try MusicModel.container()
        let writer = container.viewContext
        try writer.insert("Song", values: ["title": "So What"])
        try writer.save()
        let reader = container.newContext()
        let songs = try reader.fetch(FetchRequest(entityName: "Song"))
        #expect(songs.count == 1)
        #expect(try songs.first?["title"] == "So What")
        #expect(songs.first.map { !$0.hasChanges } == true)
    }

    @Test func existingObjectForAMissingIDThrowsObjectNotFound() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let store = try #require(container.coordinator.persistentStores.first)
        let entity = try #require(container.model.entity(named: "Song"))
        let missing = ObjectID(entity: entity, storeIdentifier: store.identifier, reference: .int(999))
        #expect(throws: GraphError.objectNotFound(missing)) { _ = try context.existingObject(with: missing) }
        #expect(context.registeredObjects.isEmpty)
        // The fault for it fails the same way when read.
        let fault = context.object(with: missing)
        #expect(throws: GraphError.objectNotFound(missing)) { _ = try fault["title"] }
        // A temporary ID no context knows is missing too.
        let temporary = ObjectID.temporary(for: entity)
        #expect(throws: GraphError.objectNotFound(temporary)) { _ = try context.existingObject(with: temporary) }
    }

    @Test func existingObjectOfAnObjectDeletedByAnotherContextThrowsObjectNotFound() throws {
        let container = try MusicModel.container()
        let writer = container.viewContext
        let song = try writer.insert("Song", values: ["title": "So What"])
        try writer.save()
        let id = song.objectID
        try writer.delete(song)
        try writer.save()
        #expect(song.context == nil)
        let reader = container.newContext()
        #expect(throws: GraphError.objectNotFound(id)) { _ = try reader.existingObject(with: id) }
    }

    @Test func existingObjectReturnsTheRegisteredObject() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        #expect(try context.existingObject(with: song.objectID) === song)
        #expect(context.object(with: song.objectID) === song)
        try song.set("title", "x")
        try context.save()
        #expect(try context.existingObject(with: song.objectID) === song)
    }

    @Test func insertingAnAbstractOrUnknownEntityIsRefused() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        #expect(throws: GraphError.abstractEntity("Animal")) { try context.insert("Animal") }
        #expect(throws: GraphError.unknownEntity("Plant")) { try context.insert("Plant") }
        #expect(!context.hasChanges)
    }

    @Test func objectsOfAnotherContextCannotBeRelated() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let other = container.newContext()
        let song = try context.insert("Song")
        let foreignAlbum = try other.insert("Album")
        let foreignComposer = try other.insert("Composer")
        #expect(throws: GraphError.differentContexts(entity: "Song", key: "album")) {
            try song.setObject(foreignAlbum, forKey: "album")
        }
        #expect(throws: GraphError.differentContexts(entity: "Song", key: "composers")) {
            try song.setObjects([foreignComposer], forKey: "composers")
        }
        #expect(throws: GraphError.differentContexts(entity: "Album", key: "songs")) {
            try foreignAlbum.add(song, toKey: "songs")
        }
        #expect(try song.object(forKey: "album") == nil)
        #expect(try foreignAlbum.objects(forKey: "songs").isEmpty)
    }

    @Test func anObjectWhoseContextIsGoneCannotBeUsed() throws {
        let container = try MusicModel.container()
        let orphan: ManagedObject = try {
            let shortLived = container.newContext()
            return try shortLived.insert("Song")
        }()
        #expect(orphan.context == nil)
        #expect(throws: GraphError.objectInaccessible(orphan.objectID, reason: "it no longer belongs to a context")) {
            try orphan.set("title", "x")
        }
    }

    @Test func aDeletedObjectRefusesChanges() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "x"])
        try context.save()
        try context.delete(song)
        #expect(throws: GraphError.objectInaccessible(song.objectID, reason: "it was deleted")) {
            try song.set("title", "y")
        }
        // Its values can still be read until the save.
        #expect(try song["title"] == "x")
    }

    @Test func uniquingGivesOneObjectPerIDInAContext() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "x"])
        try context.save()
        let fetched = try context.fetch(FetchRequest(entityName: "Song"))
        #expect(fetched.count == 1)
        #expect(fetched.first === song)
        let other = container.newContext()
        let a = try other.fetch(FetchRequest(entityName: "Song"))
        let b = try other.fetch(FetchRequest(entityName: "Song"))
        #expect(a.first === b.first)
        #expect(a.first !== song)
    }
}
