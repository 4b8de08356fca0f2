import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// Model versions of a small music store, for migrating JSON stores.
enum MigrationModels {
    /// v1: Track(name, plays int16?) and Album(title) with Album.tracks ↔ Track.album.
    static func v1() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Track", attributes: [AttributeDescription("name", .string), AttributeDescription("plays", .int16, isOptional: true)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: "tracks")]),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("tracks", destination: "Track", inverse: "album", toMany: true)]),
        ])
    }

    /// v2: Track renamed Song, name renamed title, plays widened to int64 and required with a default.
    static func v2() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string, renamingIdentifier: "name"),
                                                   AttributeDescription("plays", .int64, defaultValue: 0)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")],
                              renamingIdentifier: "Track"),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true,
                                                                      renamingIdentifier: "tracks")]),
        ])
    }

    /// v3: v2 plus Song.rating (optional) and Album.year (default 2000).
    static func v3() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Song", attributes: [AttributeDescription("title", .string), AttributeDescription("plays", .int64, defaultValue: 0),
                                                   AttributeDescription("rating", .double, isOptional: true)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: "songs")]),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string), AttributeDescription("year", .int32, defaultValue: 2000)],
                              relationships: [RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true)]),
        ])
    }

    /// Writes a v1 store at `url`: an album with `tracks` tracks, the first one saved twice
    /// (version 2), every third without plays. Returns the store's UUID.
    @discardableResult
    static func writeV1Store(at url: URL, tracks: Int = 3) throws -> String {
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: try v1())
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: url)
        defer { coordinator.remove(store) }
        let context = ObjectContext(coordinator: coordinator)
        let album = try context.insert("Album", values: ["title": "Blue"])
        var first: ManagedObject?
        for index in 0..<tracks {
            let track = try context.insert("Track", values: ["name": .string("track \(index)"),
                                                             "plays": index % 3 == 2 ? .null : .int(Int64(index))])
            try track.setObject(album, forKey: "album")
            if first == nil { first = track }
        }
        try context.save()
        try first?.set("plays", Int64(40))
        try context.save()
        return store.identifier
    }
}

@Suite("Migration: JSON stores")
struct MigrationStoreTests {
    @Test("a migrated store opens with the new model, keeping every object's ID, version and values")
    func migratedStoreKeepsIDsAndVersions() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        let uuid = try MigrationModels.writeV1Store(at: url)
        let before = try OpenStore(url, model: try MigrationModels.v1(), readOnly: true)
        let oldNodes = before.store.cacheNodes()
        let oldBytes = try Data(contentsOf: url)

        let outcome = try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v1(), try MigrationModels.v2()]).migrate()
        #expect(outcome.sourceIndex == 0)
        let backup = try #require(outcome.backupPath)
        #expect(backup == url.path + ".\(try MigrationModels.v1().versionHash.prefix(12)).backup")
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == oldBytes)

        let after = try OpenStore(url, model: try MigrationModels.v2())
        defer { after.close() }
        #expect(after.store.identifier == uuid)
        for old in oldNodes {
            let entity = old.objectID.entityName == "Track" ? "Song" : "Album"
            let id = ObjectID(entity: try #require(after.store.model?.entity(named: entity)), storeIdentifier: uuid,
                              reference: old.objectID.referenceObject)
            let node = try #require(after.store.cacheNode(for: id))
            #expect(node.version == old.version)
            if entity == "Song" {
                #expect(node.value(forKey: "title") == old.value(forKey: "name"))
                let plays = old.value(forKey: "plays")
                #expect(node.value(forKey: "plays") == (plays == .null ? 0 : plays))
            }
        }
        #expect(after.store.cacheNodes().count == oldNodes.count)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
        // The backup is the old store: it opens with the old model.
        let old = try OpenStore(URL(fileURLWithPath: backup), model: try MigrationModels.v1(), readOnly: true)
        #expect(old.store.cacheNodes().count == oldNodes.count)
    }

    @Test("a store whose journal holds saves is migrated with them, and starts with an empty journal")
    func journalIsFoldedBeforeMigrating() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        // Saves that stay in the journal: the store is dropped without being removed (a kill).
        var sequence: Int64 = 0
        do {
            let open = try OpenStore(url, model: try MigrationModels.v1())
            let context = open.context()
            let album = try #require(try context.fetch(FetchRequest(entityName: "Album")).first)
            let track = try context.insert("Track", values: ["name": "from the journal", "plays": 7])
            try track.setObject(album, forKey: "album")
            try context.save()
            sequence = open.store.commitSequence
        }
        let journal = url.path + "-journal"
        #expect(((try FileManager.default.attributesOfItem(atPath: journal))[.size] as? Int ?? 0) > 0)

        let outcome = try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v1(), try MigrationModels.v2()]).migrate()
        #expect(((try FileManager.default.attributesOfItem(atPath: journal))[.size] as? Int ?? -1) == 0)
        let after = try OpenStore(url, model: try MigrationModels.v2(), readOnly: true)
        #expect(after.store.commitSequence == sequence)
        #expect(after.store.cacheNodes(ofEntity: "Song").contains { $0.value(forKey: "title") == "from the journal" })
        // The backup alone is the whole old store, journal included.
        let old = try OpenStore(URL(fileURLWithPath: try #require(outcome.backupPath)), model: try MigrationModels.v1(), readOnly: true)
        #expect(old.store.cacheNodes(ofEntity: "Track").contains { $0.value(forKey: "name") == "from the journal" })
    }

    @Test("a store two versions behind is migrated through each version and written once")
    func chainedMigration() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url, tracks: 4)
        let versions = [try MigrationModels.v1(), try MigrationModels.v2(), try MigrationModels.v3()]
        let outcome = try JSONStoreMigrator(path: url.path, versions: versions, labels: ["v1", "v2", "v3"]).migrate()
        #expect(outcome.report.contains("step 2 of 2"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names == ["music.json", "music.json-journal", "music.json.\(versions[0].versionHash.prefix(12)).backup", "music.json.lock"])
        let after = try OpenStore(url, model: versions[2], readOnly: true)
        let albums = after.store.cacheNodes(ofEntity: "Album")
        #expect(albums.count == 1)
        #expect(albums.first?.value(forKey: "year") == 2000)
        #expect(after.store.cacheNodes(ofEntity: "Song").count == 4)
        // Nothing left to do the second time.
        #expect(try JSONStoreMigrator(path: url.path, versions: versions).migrate().wasCurrent)
    }

    @Test("a dry run reports the changes and writes nothing")
    func dryRunWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        let bytes = try Data(contentsOf: url)
        let namesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let outcome = try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v1(), try MigrationModels.v2()]).plan()
        #expect(outcome.report.contains("entity Song (3 objects):"))
        #expect(outcome.report.contains("default applied to 1 object"))
        #expect(outcome.backupPath == nil)
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == namesBefore)
    }

    @Test("a refused migration leaves the store untouched and writes no backup")
    func refusedMigrationChangesNothing() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        let bytes = try Data(contentsOf: url)
        let bad = try ObjectModel(entities: [
            EntityDescription("Track", attributes: [AttributeDescription("name", .int64), AttributeDescription("plays", .int16, isOptional: true)],
                              relationships: [RelationshipDescription("album", destination: "Album", inverse: "tracks")]),
            EntityDescription("Album", attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("tracks", destination: "Track", inverse: "album", toMany: true)]),
        ])
        let error = try #require(throws: MigrationError.self) {
            try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v1(), bad]).migrate()
        }
        #expect(error.description.contains("entity Track, property \"name\": type changed from string to int64"))
        #expect(try Data(contentsOf: url) == bytes)
        #expect(try !FileManager.default.contentsOfDirectory(atPath: directory.url.path).contains { $0.hasSuffix(".backup") })
    }

    @Test("a store of none of the versions given is refused")
    func unknownVersionIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        #expect(throws: MigrationError.noMatchingVersion(store: url.path, tried: 2)) {
            try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v2(), try MigrationModels.v3()]).migrate()
        }
    }

    @Test("an existing backup that differs from the store is never overwritten; a copy of the store is reused")
    func existingBackup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        let versions = [try MigrationModels.v1(), try MigrationModels.v2()]
        let backup = JSONStoreMigrator.backupPath(forStore: url.path, sourceModel: versions[0])
        try Data("something else".utf8).write(to: URL(fileURLWithPath: backup))
        #expect(throws: StoreMigrationError.backupExists(path: backup)) {
            try JSONStoreMigrator(path: url.path, versions: versions).migrate()
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == Data("something else".utf8))
        // A backup that is already a copy of the store (an interrupted migration's) is kept.
        try FileManager.default.removeItem(atPath: backup)
        try FileManager.default.copyItem(atPath: url.path, toPath: backup)
        #expect(try JSONStoreMigrator(path: url.path, versions: versions).migrate().backupPath == backup)
        _ = try OpenStore(url, model: versions[1], readOnly: true)
    }

    @Test("a store held open by another is refused and left as it was")
    func storeInUseIsRefused() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("music.json")
        try MigrationModels.writeV1Store(at: url)
        let holder = try OpenStore(url, model: try MigrationModels.v1())
        defer { holder.close() }
        #expect(throws: JSONStoreError.self) {
            try JSONStoreMigrator(path: url.path, versions: [try MigrationModels.v1(), try MigrationModels.v2()]).migrate()
        }
        let bytesAfter = try Data(contentsOf: url)
        #expect(!String(decoding: bytesAfter, as: UTF8.self).contains("\"Song\""))
    }
}
