import Foundation
import Synchronization
import Testing
@testable import GraphCore

/// An incremental store backed by a dictionary, as a database-backed store would be:
/// fetches answer faults only, values load one object at a time, to-many relationships
/// load separately.
private final class DictionaryStore: IncrementalStore, @unchecked Sendable {
    struct Record {
        var version: Int64
        var values: [String: Value]
    }

    /// What the store was asked, for the tests to check.
    struct Calls: Equatable {
        var fetches = 0
        var saves = 0
        var newValues: [ObjectID] = []
        var relationships: [String] = []
        var permanentIDs = 0
    }

    var records: [ObjectID: Record] = [:]
    var calls = Calls()
    private var nextReference = 1

    override func loadMetadata() throws {
        // A database would read its metadata table here; this one starts empty and new.
        metadata.userInfo["backend"] = "dictionary"
    }

    override func execute(_ request: StoreRequest) throws -> StoreResponse {
        switch request {
        case .fetch(let fetch):
            calls.fetches += 1
            return .fetched(StoreFetchResult(faults: try matchingIDs(fetch)))
        case .save(let save):
            calls.saves += 1
            return .saved(try apply(save))
        }
    }

    override func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        calls.newValues.append(id)
        guard let record = records[id] else { throw GraphError.objectNotFound(id) }
        // To-many relationships are left out: they load through newValue(forRelationship:).
        var values: [String: Value] = [:]
        for property in id.entity.properties {
            if let relationship = property.relationship, relationship.isToMany { continue }
            values[property.name] = record.values[property.name] ?? .null
        }
        return IncrementalStoreNode(objectID: id, version: record.version, values: values)
    }

    override func newValue(forRelationship name: String, forObjectWith id: ObjectID) throws -> Value {
        calls.relationships.append("\(id.entityName).\(name)")
        guard let record = records[id] else { throw GraphError.objectNotFound(id) }
        return record.values[name] ?? .objects([])
    }

    override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        calls.permanentIDs += snapshots.count
        return snapshots.map { newID(for: $0.objectID.entity) }
    }

    private func newID(for entity: EntityDescription) -> ObjectID {
        defer { nextReference += 1 }
        return newObjectID(for: entity, referenceObject: .string("row-\(nextReference)"))
    }

    // MARK: - Fetch

    private func matchingIDs(_ request: FetchRequest) throws -> [ObjectID] {
        guard let model, let entity = model.entity(named: request.entityName) else {
            throw GraphError.unknownEntity(request.entityName)
        }
        let nodes = records.map { id, record in
            ObjectSnapshot(objectID: id, version: record.version, values: id.entity.properties.map { record.values[$0.name] ?? .null })
        }
        let byID = Dictionary(uniqueKeysWithValues: nodes.map { ($0.objectID, $0) })
        let evaluator = try request.predicate.map { try PredicateEvaluator<ObjectSnapshot>($0, entity: entity, resolve: { byID[$0] }) }
        return try nodes.filter { node in
            guard request.includes(node.objectID.entity, requested: entity) else { return false }
            return try evaluator?.matches(node) ?? true
        }.map(\.objectID)
    }

    // MARK: - Save

    private func apply(_ request: SaveChangesRequest) throws -> SaveResult {
        var conflicts: [Conflict] = []
        for snapshot in request.updatedObjects + request.deletedObjects + request.lockedObjects {
            let current = records[snapshot.objectID]?.version
            if current != snapshot.version {
                conflicts.append(Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version, currentVersion: current))
            }
        }
        if !conflicts.isEmpty { throw GraphError.conflict(conflicts) }

        var result = SaveResult()
        for snapshot in request.insertedObjects where snapshot.objectID.isTemporary {
            result.permanentIDs[snapshot.objectID] = newID(for: snapshot.objectID.entity)
        }
        func row(_ snapshot: ObjectSnapshot) -> [String: Value] {
            var row: [String: Value] = [:]
            for (index, property) in snapshot.objectID.entity.properties.enumerated() {
                row[property.name] = switch snapshot.values[index] {
                case .object(let id) where id.isTemporary: .object(result.permanentIDs[id] ?? id)
                case .objects(let ids): .objects(ids.map { $0.isTemporary ? (result.permanentIDs[$0] ?? $0) : $0 })
                case let value: value
                }
            }
            return row
        }
        for snapshot in request.insertedObjects {
            let id = result.permanentIDs[snapshot.objectID] ?? snapshot.objectID
            records[id] = Record(version: 1, values: row(snapshot))
            result.versions[id] = 1
        }
        for snapshot in request.updatedObjects {
            let version = snapshot.version + 1
            records[snapshot.objectID] = Record(version: version, values: row(snapshot))
            result.versions[snapshot.objectID] = version
        }
        for snapshot in request.deletedObjects {
            records[snapshot.objectID] = nil
        }
        return result
    }
}

@Suite struct IncrementalStoreTests {
    private struct Setup {
        let coordinator: StoreCoordinator
        let store: DictionaryStore
        let name: String

        init() throws {
            name = "DictionaryStore.\(UUID().uuidString)"
            StoreRegistry.register(DictionaryStore.self, as: name)
            coordinator = StoreCoordinator(model: try MusicModel.make())
            store = try #require(try coordinator.addPersistentStore(type: name) as? DictionaryStore)
        }

        func context() -> ObjectContext { ObjectContext(coordinator: coordinator) }

        /// An album with two songs, saved through the store.
        func seed() throws -> (album: ObjectID, songs: [ObjectID]) {
            let context = context()
            let album = try context.insert("Album", values: ["title": "Kind of Blue"])
            let songs = try ["So What", "Blue in Green"].map { title in
                let song = try context.insert("Song", values: ["title": .string(title)])
                try song.setObject(album, forKey: "album")
                return song
            }
            try context.save()
            return (album.objectID, songs.map(\.objectID))
        }
    }

    @Test func theStoreOpensWithItsMetadata() throws {
        let setup = try Setup()
        #expect(setup.store.metadata.userInfo["backend"] == "dictionary")
        #expect(setup.store.metadata.storeType == setup.name)
        #expect(setup.store.metadata.entityVersionHashes == setup.coordinator.model.entityVersionHashes)
    }

    @Test func savingInsertsRecordsWithThePermanentIDsTheStoreGave() throws {
        let setup = try Setup()
        let (albumID, songIDs) = try setup.seed()
        #expect(setup.store.calls.permanentIDs == 3)
        #expect(setup.store.calls.saves == 1)
        #expect(albumID.storeIdentifier == setup.store.identifier)
        #expect(albumID.referenceObject.description.hasPrefix("row-"))
        #expect(albumID.uriRepresentation == "graph://\(setup.store.identifier)/Album/\(albumID.referenceObject)")
        let album = try #require(setup.store.records[albumID])
        #expect(album.version == 1)
        #expect(album.values["songs"] == .objects(songIDs))
        #expect(setup.store.records[songIDs[0]]?.values["album"] == .object(albumID))
    }

    @Test func aFetchReturnsFaultsWhoseValuesLoadWhenRead() throws {
        let setup = try Setup()
        let (albumID, songIDs) = try setup.seed()
        let context = setup.context()
        setup.store.calls = .init()

        let songs = try context.fetch(FetchRequest(entityName: "Song"))
        #expect(Set(songs.map(\.objectID)) == Set(songIDs))
        #expect(songs.allSatisfy { $0.isFault })
        #expect(setup.store.calls.fetches == 1)
        #expect(setup.store.calls.newValues.isEmpty)

        let first = try #require(songs.first { $0.objectID == songIDs[0] })
        #expect(try first.get("title") as String == "So What")
        #expect(!first.isFault)
        #expect(first.version == 1)
        #expect(setup.store.calls.newValues == [songIDs[0]])
        #expect(setup.store.calls.relationships == ["Song.composers"])  // the to-many left out
        #expect(songs.filter(\.isFault).count == 1)

        let album = try #require(try first.object(forKey: "album"))
        #expect(album.objectID == albumID)
        #expect(try album.value(forKey: "songs") == .objects(songIDs))
        #expect(setup.store.calls.relationships == ["Song.composers", "Album.songs"])
    }

    @Test func theStoreEvaluatesTheFetchPredicate() throws {
        let setup = try Setup()
        let (_, songIDs) = try setup.seed()
        let context = setup.context()
        let found = try context.fetch(FetchRequest(entityName: "Song", predicate: .key("title").beginsWith("Blue")))
        #expect(found.map(\.objectID) == [songIDs[1]])
        #expect(found.first?.isFault == true)
        let sorted = try context.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")]))
        #expect(sorted.map(\.objectID) == [songIDs[1], songIDs[0]])
    }

    @Test func aFetchIncludesTheContextsUnsavedChanges() throws {
        let setup = try Setup()
        let (_, songIDs) = try setup.seed()
        let context = setup.context()
        try context.delete(context.existingObject(with: songIDs[0]))
        let added = try context.insert("Song", values: ["title": "All Blues"])
        let found = try context.fetch(FetchRequest(entityName: "Song"))
        #expect(Set(found.map(\.objectID)) == [songIDs[1], added.objectID])
    }

    @Test func updatesAndDeletesAreSavedWithNewVersions() throws {
        let setup = try Setup()
        let (albumID, songIDs) = try setup.seed()
        let context = setup.context()
        let song = try context.existingObject(with: songIDs[0])
        try song.set("plays", 3)
        try context.delete(context.existingObject(with: songIDs[1]))
        try context.save()

        #expect(song.version == 2)
        #expect(setup.store.records[songIDs[0]]?.version == 2)
        #expect(setup.store.records[songIDs[0]]?.values["plays"] == 3)
        #expect(setup.store.records[songIDs[1]] == nil)
        #expect(setup.store.records[albumID]?.version == 2)  // changed through the inverse
        #expect(setup.store.records[albumID]?.values["songs"] == .objects([songIDs[0]]))

        let reader = setup.context()
        #expect(throws: GraphError.objectNotFound(songIDs[1])) { try reader.existingObject(with: songIDs[1]) }
        #expect(try reader.existingObject(with: albumID).objects(forKey: "songs").map(\.objectID) == [songIDs[0]])
    }

    @Test func aStaleSaveThroughTheStoreIsAConflict() throws {
        let setup = try Setup()
        let (_, songIDs) = try setup.seed()
        let first = setup.context()
        let second = setup.context()
        let mine = try first.existingObject(with: songIDs[0])
        let theirs = try second.existingObject(with: songIDs[0])
        try mine.set("title", "First")
        try theirs.set("plays", 9)
        try first.save()

        let error = #expect(throws: GraphError.self) { try second.save() }
        #expect(error == .conflict([Conflict(objectID: songIDs[0], expectedVersion: 1, currentVersion: 2)]))
        #expect(setup.store.records[songIDs[0]]?.values["plays"] == 0)

        second.mergePolicy = .storeTrumps
        try second.save()
        #expect(theirs.version == 3)
        #expect(try theirs.get("title") as String == "First")
        #expect(setup.store.records[songIDs[0]]?.values["title"] == "First")
        #expect(setup.store.records[songIDs[0]]?.values["plays"] == 9)
    }

    @Test func anObjectDeletedThroughTheStoreConflictsWithNoCurrentVersion() throws {
        let setup = try Setup()
        let (_, songIDs) = try setup.seed()
        let first = setup.context()
        let second = setup.context()
        let theirs = try second.existingObject(with: songIDs[0])
        try first.delete(first.existingObject(with: songIDs[0]))
        try first.save()
        try theirs.set("plays", 1)
        let error = #expect(throws: GraphError.self) { try second.save() }
        #expect(error == .conflict([Conflict(objectID: songIDs[0], expectedVersion: 1, currentVersion: nil)]))
    }

    @Test func mergingASaveReloadsThroughTheStore() throws {
        let setup = try Setup()
        let (albumID, _) = try setup.seed()
        let reader = setup.context()
        let album = try reader.existingObject(with: albumID)
        let writer = setup.context()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.existingObject(with: albumID).set("title", "Legacy")
        try writer.save()

        setup.store.calls = .init()
        reader.mergeChanges(from: notification)
        #expect(album.isFault)
        #expect(try album.get("title") as String == "Legacy")
        #expect(setup.store.calls.newValues == [albumID])
    }

    @Test func aReadOnlyIncrementalStoreRefusesSaves() throws {
        let name = "DictionaryStore.readOnly.\(UUID().uuidString)"
        StoreRegistry.register(DictionaryStore.self, as: name)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(
            try coordinator.addPersistentStore(type: name, options: StoreOptions(isReadOnly: true)) as? DictionaryStore)
        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Song", values: ["title": "Nope"])
        #expect {
            try context.save()
        } throws: { error in
            guard case GraphError.readOnlyStore = error else { return false }
            return true
        }
        #expect(store.records.isEmpty)
        #expect(store.calls.saves == 0)
    }

    @Test func theBaseClassReportsWhatASubclassDidNotImplement() throws {
        let name = "BareIncrementalStore.\(UUID().uuidString)"
        StoreRegistry.register(IncrementalStore.self, as: name)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        try coordinator.addPersistentStore(type: name)
        let context = ObjectContext(coordinator: coordinator)
        #expect {
            _ = try context.fetch(FetchRequest(entityName: "Song"))
        } throws: { error in
            guard case GraphError.store(let message) = error else { return false }
            return message.contains("execute")
        }
    }
}
