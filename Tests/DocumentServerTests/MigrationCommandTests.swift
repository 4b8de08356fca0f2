import Foundation
import GraphCore
import JSONAtomicStore
import ServerTestSupport
import Testing

/// Model files of two versions of a small store, and a store written with the first.
enum MigrationFiles {
    static let v1 = """
        {"entities": [
          {"name": "Track",
           "attributes": [{"name": "name", "type": "string"}, {"name": "plays", "type": "int16", "optional": true}],
           "relationships": [{"name": "album", "destination": "Album", "inverse": "tracks"}]},
          {"name": "Album",
           "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "tracks", "destination": "Track", "inverse": "album", "toMany": true}]}
        ]}
        """
    static let v2 = """
        {"entities": [
          {"name": "Song", "renamingIdentifier": "Track",
           "attributes": [{"name": "title", "type": "string", "renamingIdentifier": "name"},
                          {"name": "plays", "type": "int64", "default": 0},
                          {"name": "rating", "type": "double", "optional": true}],
           "relationships": [{"name": "album", "destination": "Album", "inverse": "songs"}]},
          {"name": "Album",
           "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "songs", "destination": "Song", "inverse": "album", "toMany": true,
                              "renamingIdentifier": "tracks"}]}
        ]}
        """

    /// Writes the two model files and a v1 store of one album (holding the first three tracks) and `tracks` tracks (every third
    /// without plays) into `directory`; returns the store's UUID and the first track's reference.
    @discardableResult
    static func write(in directory: TemporaryDirectory, tracks: Int = 3) throws -> (uuid: String, firstTrack: String) {
        try Data(v1.utf8).write(to: directory.file("v1.model.json"))
        try Data(v2.utf8).write(to: directory.file("v2.model.json"))
        JSONAtomicStore.register()
        let coordinator = StoreCoordinator(model: try ObjectModel(contentsOf: directory.file("v1.model.json")))
        let store = try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: directory.file("store.json"))
        defer { coordinator.remove(store) }
        let context = ObjectContext(coordinator: coordinator)
        let album = try context.insert("Album", values: ["title": "Blue"])
        var first: ManagedObject?
        for index in 0..<tracks {
            let track = try context.insert("Track", values: ["name": .string("track \(index)"),
                                                             "plays": index % 3 == 2 ? .null : .int(Int64(index % 1000))])
            // Only the first few on the album: a to-many of thousands costs the crash test's setup dearly.
            if index < 3 { try track.setObject(album, forKey: "album") }
            if first == nil { first = track }
        }
        try context.save()
        return (store.identifier, first?.objectID.referenceObject.description ?? "")
    }

    static func names(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).filter { !$0.hasSuffix(".model.json") }.sorted()
    }
}

@Suite("Migration: docserver migrate and serve --migrate")
struct MigrationCommandTests {
    @Test("migrate --dry-run prints every change and writes nothing")
    func dryRunPrintsAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory)
        let store = directory.file("store.json")
        let bytes = try Data(contentsOf: store)
        let namesBefore = try MigrationFiles.names(in: directory)
        let result = try runDocServer(["migrate", "--store", store.path, "--model", directory.file("v2.model.json").path,
                                       "--from-model", directory.file("v1.model.json").path, "--dry-run"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("dry run: nothing is written"))
        #expect(result.output.contains("step 1 of 1: v1.model.json ("))
        #expect(result.output.contains("entity Song (3 objects):"))
        #expect(result.output.contains("renamed from Track"))
        #expect(result.output.contains("\"title\": renamed from \"name\""))
        #expect(result.output.contains("\"plays\": widened from int16 to int64; made required (nil values get the default 0); default applied to 1 object"))
        #expect(result.output.contains("\"rating\": added (nil for existing objects)"))
        #expect(result.output.contains("\"songs\": renamed from \"tracks\""))
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try MigrationFiles.names(in: directory) == namesBefore)
    }

    @Test("migrate writes the migrated store and the backup, and refuses what is not lightweight with exit status 1")
    func migrateAndRefuse() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory)
        let store = directory.file("store.json")
        let bad = MigrationFiles.v2.replacingOccurrences(of: "\"name\": \"title\", \"type\": \"string\"", with: "\"name\": \"title\", \"type\": \"date\"")
        try Data(bad.utf8).write(to: directory.file("bad.model.json"))
        let refused = try runDocServer(["migrate", "--store", store.path, "--model", directory.file("bad.model.json").path,
                                        "--from-model", directory.file("v1.model.json").path])
        #expect(refused.status == 1)
        #expect(refused.errors.contains("entity Song, property \"title\": type changed from string to date"))

        let result = try runDocServer(["migrate", "--store", store.path, "--model", directory.file("v2.model.json").path,
                                       "--from-model", directory.file("v1.model.json").path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("the old store is kept as"))
        let check = try runDocServer(["check", "--store", store.path, "--model", directory.file("v2.model.json").path])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("4 objects (Album 1, Song 3)"))
        #expect(try MigrationFiles.names(in: directory).contains { $0.hasPrefix("store.json.") && $0.hasSuffix(".backup") })
    }

    @Test("serve refuses a store of an earlier version without --migrate, with the dry run's text")
    func serveRefusesWithoutMigrate() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory)
        let store = directory.file("store.json")
        let bytes = try Data(contentsOf: store)
        let result = try runDocServer(["serve", "--port", "0", "--store", store.path, "--model", directory.file("v2.model.json").path,
                                       "--from-model", directory.file("v1.model.json").path])
        #expect(result.status == 2)
        #expect(result.errors.contains("start with --migrate to migrate it"))
        #expect(result.errors.contains("\"title\": renamed from \"name\""))
        #expect(try Data(contentsOf: store) == bytes)
    }

    @Test("serve --migrate migrates on open, and an old object is got over the wire by its old ID")
    func serveMigratesThenGetsAnOldObject() throws {
        let directory = try TemporaryDirectory()
        let (uuid, firstTrack) = try MigrationFiles.write(in: directory)
        let id = "graph://\(uuid)/Song/\(firstTrack)"
        let server = try ServerProcess(store: directory.file("store.json"),
                                       arguments: ["--model", directory.file("v2.model.json").path,
                                                   "--from-model", directory.file("v1.model.json").path, "--migrate"],
                                       keeping: directory)
        let client = try server.connect()
        let result = try client.result("get", ["ids": [id]])
        let object = result["objects"][0]
        #expect(object["entity"].string == "Song")
        #expect(object["version"].int == 1)
        #expect(object["values"]["title"].string == "track 0")
        #expect(object["values"]["plays"].int == 0)
        #expect(server.log.contains("migrated store"))
        _ = try server.stop()
    }

    @Test("migrate refuses a store that a running server holds, and changes nothing")
    func migrateRefusesAStoreInUse() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory)
        let store = directory.file("store.json")
        let bytes = try Data(contentsOf: store)
        let server = try ServerProcess(store: store, arguments: ["--model", directory.file("v1.model.json").path], keeping: directory)
        let result = try runDocServer(["migrate", "--store", store.path, "--model", directory.file("v2.model.json").path,
                                       "--from-model", directory.file("v1.model.json").path])
        #expect(result.status == 2)
        #expect(result.errors.contains("is in use by process"))
        _ = try server.stop()
        #expect(try Data(contentsOf: store) == bytes)
        #expect(try !MigrationFiles.names(in: directory).contains { $0.hasSuffix(".backup") })
    }

    @Test("migrate through two versions from the command line, then again finds nothing to do")
    func migrateTwoVersionsThenNothing() throws {
        let directory = try TemporaryDirectory()
        try MigrationFiles.write(in: directory)
        let v3 = MigrationFiles.v2.replacingOccurrences(of: "{\"name\": \"rating\", \"type\": \"double\", \"optional\": true}",
                                                        with: "{\"name\": \"rating\", \"type\": \"double\", \"optional\": true}, {\"name\": \"mood\", \"type\": \"string\", \"default\": \"calm\"}")
        try Data(v3.utf8).write(to: directory.file("v3.model.json"))
        let arguments = ["migrate", "--store", directory.file("store.json").path, "--model", directory.file("v3.model.json").path,
                         "--from-model", directory.file("v1.model.json").path, "--from-model", directory.file("v2.model.json").path]
        let first = try runDocServer(arguments)
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("step 2 of 2: v2.model.json"))
        #expect(first.output.contains("\"mood\": added (existing objects get \"calm\")"))
        let second = try runDocServer(arguments)
        #expect(second.status == 0)
        #expect(second.output.contains("nothing to migrate"))
    }
}
