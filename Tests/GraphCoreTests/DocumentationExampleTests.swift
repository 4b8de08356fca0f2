import Foundation
import Testing
import GraphCore

/// The code of the DocC getting-started article (`GraphCore.docc/GettingStarted.md`), step
/// by step as written there, so that the article cannot drift from the API. Only public API
/// is used (no `@testable`), as a reader's code would.
@Suite struct DocumentationExampleTests {
    // MARK: - Build a model

    /// "Describe the model in code".
    static func musicModel() throws -> ObjectModel {
        let album = EntityDescription("Album", attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("released", .date, isOptional: true),
        ], relationships: [
            RelationshipDescription("songs", destination: "Song", inverse: "album",
                                    toMany: true, ordered: true, deleteRule: .cascade),
        ])
        let song = EntityDescription("Song", attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("plays", .int64, defaultValue: 0),
        ], relationships: [
            RelationshipDescription("album", destination: "Album", inverse: "songs"),
        ])
        return try ObjectModel(entities: [album, song])
    }

    /// "…or load it from a JSON model file".
    static let modelFile = """
        {
          "entities": [
            { "name": "Album",
              "attributes": [ { "name": "title", "type": "string" },
                              { "name": "released", "type": "date", "optional": true } ],
              "relationships": [ { "name": "songs", "destination": "Song", "inverse": "album",
                                   "toMany": true, "ordered": true, "deleteRule": "cascade" } ] },
            { "name": "Song",
              "attributes": [ { "name": "title", "type": "string" },
                              { "name": "plays", "type": "int64", "default": 0 } ],
              "relationships": [ { "name": "album", "destination": "Album", "inverse": "songs" } ] }
          ]
        }
        """

    @Test func theModelBuiltInCodeEqualsTheModelLoadedFromTheFile() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("DocumentationExampleTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let modelURL = directory.appendingPathComponent("music.model.json")
        try Data(Self.modelFile.utf8).write(to: modelURL)

        // As in the article:
        let model = try ObjectModel(contentsOf: modelURL)

        #expect(model.versionHash == (try Self.musicModel()).versionHash)
        #expect(model.entity(named: "Song")?.property(named: "album")?.relationship?.inverse == "songs")
    }

    // MARK: - Coordinator, store, context; insert, relate, save; fetch

    @Test func insertingRelatingSavingAndFetchingWorkAsTheArticleSays() throws {
        let model = try Self.musicModel()

        // Open a store.
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ObjectContext(coordinator: coordinator)

        // Insert and relate objects.
        let album = try context.insert("Album")
        try album.set("title", "Kind of Blue")
        let soWhat = try context.insert("Song")
        try soWhat.set("title", "So What")
        try soWhat.set("plays", 12)
        try soWhat.setObject(album, forKey: "album")
        let blue = try context.insert("Song", values: ["title": "Blue in Green", "plays": 3])
        try album.add(blue, toKey: "songs")

        #expect(try album.objects(forKey: "songs") == [soWhat, blue])
        #expect(try blue.object(forKey: "album") == album)

        // Save.
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        #expect(!soWhat.objectID.isTemporary)

        // Fetch with a predicate and a sort.
        var request = FetchRequest(entityName: "Song")
        request.predicate = try Predicate(format: "album.title == %@ AND plays >= %d", "Kind of Blue", 1)
        request.sortDescriptors = [SortDescriptor("plays", ascending: false)]
        let songs = try context.fetch(request)
        #expect(songs.map { try? $0.get("title", as: String.self) } == ["So What", "Blue in Green"])

        request.predicate = .key("title") == "So What" || .key("plays") > 100
        #expect(try context.fetch(request) == [soWhat])
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 2)
    }

    // MARK: - Faults

    @Test func anObjectReachedByIDIsAFaultUntilAValueIsRead() throws {
        let container = try PersistentContainer(model: Self.musicModel())
        let writer = container.newContext()
        let song = try writer.insert("Song", values: ["title": "So What"])
        try writer.save()
        let id = song.objectID

        // As in the article:
        let reader = container.newContext()
        let fault = reader.object(with: id)
        #expect(fault.isFault)                          // nothing read from the store yet
        let title: String = try fault.get("title")      // fires the fault
        #expect(title == "So What")
        #expect(!fault.isFault)

        try reader.refresh(fault, mergeChanges: false)  // a fault again, its memory freed
        #expect(fault.isFault)
    }

    // MARK: - A second context and merging

    @Test func aSecondContextSeesASaveOnceItMergesTheNotification() throws {
        let container = try PersistentContainer(model: Self.musicModel())
        let main = container.viewContext
        let song = try main.insert("Song", values: ["title": "So What"])
        try main.save()

        // As in the article:
        let editor = container.newContext()
        let token = editor.addDidSaveObserver { notification in
            main.mergeChanges(from: notification)
        }
        let copy = try editor.existingObject(with: song.objectID)
        try copy.set("plays", 42)
        try editor.save()
        #expect(try song.get("plays", as: Int.self) == 42)   // merged into `main`
        editor.removeDidSaveObserver(token)
    }

    @Test func aBackgroundContextPassesObjectIDsBack() async throws {
        let container = try PersistentContainer(model: Self.musicModel())
        let background = container.newBackgroundContext()
        let id = try await background.perform { context in
            let song = try context.insert("Song")
            try song.set("title", "Blue")
            try context.save()
            return song.objectID
        }
        let song = try container.viewContext.existingObject(with: id)
        #expect(try song.get("title", as: String.self) == "Blue")
    }

    // MARK: - Conflicts and merge policies

    @Test func aConflictIsReportedAndAMergePolicyResolvesIt() throws {
        let container = try PersistentContainer(model: Self.musicModel())
        let seed = container.newContext()
        let song = try seed.insert("Song", values: ["title": "So What"])
        try seed.save()
        let id = song.objectID  // permanent once saved

        // As in the article:
        let first = container.newContext()
        let second = container.newContext()
        try first.existingObject(with: id).set("plays", 1)
        try second.existingObject(with: id).set("title", "So What (take 2)")

        try first.save()                       // version 1 -> 2
        var reported: [Conflict] = []
        do {
            try second.save()                  // still read version 1
        } catch GraphError.conflict(let conflicts) {
            reported = conflicts               // [Conflict(objectID: id, expectedVersion: 1, currentVersion: 2)]
        }

        second.mergePolicy = .objectTrumps     // keep this context's title, take the store's plays
        try second.save()

        #expect(reported == [Conflict(objectID: id, expectedVersion: 1, currentVersion: 2)])
        let check = container.newContext()
        let saved = try check.existingObject(with: id)
        #expect(try saved.get("title", as: String.self) == "So What (take 2)")
        #expect(try saved.get("plays", as: Int.self) == 1)
        #expect(saved.version == 3)
    }

    // MARK: - A custom store type

    @Test func aStoreTypeRegisteredByNameIsOpenedByThatName() throws {
        let model = try Self.musicModel()

        // As in the article:
        StoreRegistry.register(CountingStore.self, as: "Counting")
        let coordinator = StoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: "Counting")
        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Song").set("title", "So What")
        try context.save()

        #expect((store as? CountingStore)?.saveCount == 1)
        #expect(store.metadata.storeType == "Counting")
        #expect(StoreRegistry.registeredNames.contains("Counting"))
    }
}

/// The article's custom store: an atomic store whose `save()` counts instead of writing.
final class CountingStore: AtomicStore, @unchecked Sendable {
    // Safe to share: the coordinator calls its stores one call at a time, under its lock.
    private(set) var saveCount = 0

    override func load() throws {
        // Read the file at `url` here: make each object's ID with
        // `objectID(for:referenceObject:)`, hand their `ObjectSnapshot`s to `addCacheNodes(_:)`,
        // and set `metadata` and `nextReference`.
    }

    override func save() throws {
        // Write `cacheNodes()` and `metadata` to `url` here.
        saveCount += 1
    }
}
