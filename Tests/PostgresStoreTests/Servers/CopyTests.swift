import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `docserver copy`: a JSON store served by one server, copied into an empty database, is served
/// by a server on that database with the same IDs, versions and values, and saves continue its
/// commit numbers and references.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct CopyTests {
    @Test func aCopiedStoreIsServedFromTheDatabaseWithItsIDsVersionsAndNumbers() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.json")
        let file = try ServerProcess(store: store)
        let client = try WireClient(port: file.port)
        let seeded = try client.result("save", ["insert": [
            ["id": "artist", "entity": "Artist", "values": ["name": "Nina"]],
            ["id": "album", "entity": "Album", "values": ["title": "Blue", "artist": "artist", "songs": ["a", "b", "c"]]],
            ["id": "a", "entity": "Song", "values": ["title": "A", "plays": 1]],
            ["id": "b", "entity": "Song", "values": ["title": "B", "plays": 2]],
            ["id": "c", "entity": "Song", "values": ["title": "C", "plays": 3]],
            ["id": "jazz", "entity": "Tag", "values": ["label": "jazz", "songs": ["a", "c"]]],
        ]])
        let ids = try ["artist", "album", "a", "b", "c", "jazz"].map { try seeded.id($0) }
        // Versions above 1, and a deleted object whose ID is not used again.
        _ = try client.result("save", ["update": [["id": ids[2], "version": 1, "values": ["plays": 10]]]])
        let deleted = try client.result("save", ["delete": [["id": ids[3], "version": 1]]])
        let before = try client.result("get", ["ids": ids])
        _ = try file.stop()

        let database = try PostgresCluster.newDatabase()
        let copied = try runDocServer(["copy", "--from", store.path, "--to", database.absoluteString], timeout: 60)
        #expect(copied.status == 0, "\(copied.errors)")
        #expect(copied.output.contains("5 objects at commit \(deleted.seq) copied"), "\(copied.output)")
        #expect(copied.errors.contains("copied 5 of 5 objects"), "\(copied.errors)")
        // The tables it filled are analyzed: PostgreSQL plans with their statistics from the start.
        let analyzed = try PostgresCluster.shared().psql(
            "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL ORDER BY relname", database: database.lastPathComponent)
        #expect(analyzed.split(separator: "\n").map(String.init) == ["Album", "Album.songs", "Artist", "Artist.albums", "Song", "Song.tags", "Tag", "Tag.songs"],
                "\(analyzed)")

        let served = try DatabaseServers.server(on: database)
        let reader = try WireClient(port: served.port)
        let after = try reader.result("get", ["ids": ids])
        #expect(AnswerText.comparable(after) == AnswerText.comparable(before))
        #expect(after.objects[3] == nil, "the deleted song")
        // The next save is numbered after the store's last commit; new objects get new IDs.
        let next = try reader.result("save", ["insert": [["id": "d", "entity": "Song", "values": ["title": "D", "plays": 4]]]])
        #expect(next.seq == deleted.seq + 1)
        let newID = try next.id("d")
        #expect(!ids.contains(newID))
        #expect(try AnswerText.reference(newID) > ids.map(AnswerText.reference).max() ?? 0)

        // A database that holds objects is refused, and so is a destination that is not a database.
        let again = try runDocServer(["copy", "--from", store.path, "--to", database.absoluteString], timeout: 60)
        #expect(again.status == 2)
        #expect(again.errors.contains("already holds objects or commits"), "\(again.errors)")
        let toFile = try runDocServer(["copy", "--from", store.path, "--to", directory.file("other.json").path], timeout: 30)
        #expect(toFile.status == 2)
        #expect(toFile.errors.contains("--to must be a postgresql:// URL"), "\(toFile.errors)")
        let missing = try runDocServer(["copy", "--from", directory.file("none.json").path, "--to", database.absoluteString], timeout: 30)
        #expect(missing.status == 2)
    }

    @Test func relationshipsWithoutAnInverseToADeletedObjectAreCopiedAsTheServerServedThem() throws {
        // Relationships without an inverse that named a deleted object: the server reads them as
        // cleared, and the copy (through the store file, which the loader checks) must give the
        // database nothing its foreign keys would refuse.
        let directory = try TemporaryDirectory()
        let model = directory.file("notes.model.json")
        try #"""
            {"entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}],
              "relationships": [{"name": "link", "destination": "Note", "optional": true},
                                {"name": "seeAlso", "destination": "Note", "toMany": true, "optional": true}]}]}
            """#.write(to: model, atomically: true, encoding: .utf8)
        let store = directory.file("notes.json")
        let file = try ServerProcess(store: store, arguments: ["--model", model.path])
        let client = try WireClient(port: file.port)
        let seeded = try client.result("save", ["insert": [
            ["id": "a", "entity": "Note", "values": ["text": "a", "link": "b", "seeAlso": ["b", "c"]]],
            ["id": "b", "entity": "Note", "values": ["text": "b"]],
            ["id": "c", "entity": "Note", "values": ["text": "c"]],
        ]])
        let (a, b, c) = (try seeded.id("a"), try seeded.id("b"), try seeded.id("c"))
        _ = try client.result("save", ["delete": [["id": b, "version": 1]]])
        let served = try client.result("get", ["ids": [a]])
        _ = try file.stop()

        let database = try PostgresCluster.newDatabase()
        let copied = try runDocServer(["copy", "--model", model.path, "--from", store.path, "--to", database.absoluteString], timeout: 60)
        #expect(copied.status == 0, "\(copied.errors)")
        let directoryB = try TemporaryDirectory()
        let onDatabase = try ServerProcess(store: nil, arguments: ["--store", database.absoluteString, "--model", model.path],
                                           workingDirectory: directoryB.url, keeping: directoryB, timeout: 60)
        let read = try WireClient(port: onDatabase.port).result("get", ["ids": [a]])
        #expect(AnswerText.comparable(read) == AnswerText.comparable(served))
        let values = read.objects.first??["values"] as? [String: Any]
        #expect(values?["link"] is NSNull)
        #expect(values?["seeAlso"] as? [String] == [c])
    }
}
