import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `docserver copy` from a database into a store file, and `docserver check` of a database:
/// the round trip JSON → PostgreSQL → JSON keeps every ID, version, value and number, and
/// `check` finds what would break a server on the database.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct CopyOutAndCheckTests {
    @Test func aDatabaseCopiedIntoAStoreFileIsServedWithItsIDsVersionsValuesAndNumbers() throws {
        let directory = try TemporaryDirectory()
        let database = try PostgresCluster.newDatabase()
        let onDatabase = try DatabaseServers.server(on: database)
        let client = try WireClient(port: onDatabase.port)
        let seeded = try client.result("save", ["insert": [
            ["id": "artist", "entity": "Artist", "values": ["name": "Nina"]],
            ["id": "album", "entity": "Album", "values": ["title": "Blue", "artist": "artist", "songs": ["a", "b"]]],
            ["id": "a", "entity": "Song", "values": ["title": "A", "plays": 1, "rating": 4.5]],
            ["id": "b", "entity": "Song", "values": ["title": "B", "plays": 2]],
            ["id": "jazz", "entity": "Tag", "values": ["label": "jazz", "songs": ["a", "b"]]],
        ]])
        let ids = try ["artist", "album", "a", "b", "jazz"].map { try seeded.id($0) }
        _ = try client.result("save", ["update": [["id": ids[2], "version": 1, "values": ["plays": 10]]]])
        let last = try client.result("save", ["delete": [["id": ids[3], "version": 1]]])
        let before = try client.result("get", ["ids": ids])

        // check on the database, while its server runs.
        let checked = try runDocServer(["check", "--store", database.absoluteString], timeout: 60)
        #expect(checked.status == 0, "\(checked.errors)")
        #expect(checked.output.contains("ok, 4 objects (Album 1, Artist 1, Song 1, Tag 1)"), "\(checked.output)")
        #expect(checked.output.contains("commit \(last.seq)"), "\(checked.output)")

        // Copied out while the server runs: the database at one instant.
        let store = directory.file("copied.json")
        let copied = try runDocServer(["copy", "--from", database.absoluteString, "--to", store.path], timeout: 60)
        #expect(copied.status == 0, "\(copied.errors)")
        #expect(copied.output.contains("4 objects (Album 1, Artist 1, Song 1, Tag 1) at commit \(last.seq) copied into"), "\(copied.output)")
        #expect(!copied.output.contains("password"))
        let fileCheck = try runDocServer(["check", "--store", store.path], timeout: 60)
        #expect(fileCheck.status == 0, "\(fileCheck.errors)")

        _ = try onDatabase.stop()
        let served = try ServerProcess(store: store)
        let reader = try WireClient(port: served.port)
        let after = try reader.result("get", ["ids": ids])
        #expect(AnswerText.comparable(after) == AnswerText.comparable(before))
        // The file goes on from the database's last commit and references.
        let next = try reader.result("save", ["insert": [["id": "c", "entity": "Song", "values": ["title": "C", "plays": 3]]]])
        #expect(next.seq == last.seq + 1)
        #expect(try AnswerText.reference(next.id("c")) > ids.map(AnswerText.reference).max() ?? 0)
        _ = try served.stop()

        // A store file that holds objects is refused, and stays as it was.
        let size = try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int
        let again = try runDocServer(["copy", "--from", database.absoluteString, "--to", store.path], timeout: 60)
        #expect(again.status == 2)
        #expect(again.errors.contains("already holds 5 object(s)"), "\(again.errors)")
        #expect(try FileManager.default.attributesOfItem(atPath: store.path)[.size] as? Int == size)
    }

    @Test func aDatabaseWithoutAStoreIsRefusedAndLeftEmpty() throws {
        let directory = try TemporaryDirectory()
        let database = try PostgresCluster.newDatabase()
        let name = database.lastPathComponent
        let copied = try runDocServer(["copy", "--from", database.absoluteString, "--to", directory.file("out.json").path], timeout: 60)
        #expect(copied.status == 2)
        #expect(copied.errors.contains("holds no graph store"), "\(copied.errors)")
        let checked = try runDocServer(["check", "--store", database.absoluteString], timeout: 60)
        #expect(checked.status == 2)
        #expect(checked.errors.contains("holds no graph store"), "\(checked.errors)")
        let tables = try PostgresCluster.shared().psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: name)
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "nothing was created")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.json").path))
        let between = try runDocServer(["copy", "--from", database.absoluteString, "--to", database.absoluteString], timeout: 30)
        #expect(between.status == 2)
    }

    @Test func checkFindsARequiredValueMissingAHoleInTheHistoryAndAReferenceSequenceBehind() throws {
        let database = try PostgresCluster.newDatabase()
        let name = database.lastPathComponent
        let server = try DatabaseServers.server(on: database)
        let client = try WireClient(port: server.port)
        var saved: [String] = []
        for index in 0..<4 {
            let answer = try client.result("save", ["insert": [["id": "s", "entity": "Song", "values": ["title": "song \(index)", "plays": index]]]])
            saved.append(try answer.id("s"))
        }
        _ = try server.stop()
        let cluster = try PostgresCluster.shared()
        #expect(try runDocServer(["check", "--store", database.absoluteString], timeout: 60).status == 0)

        // A required title cleared by hand: the loader's check names the object and the property.
        _ = try cluster.psql("UPDATE \"Song\" SET \"title\" = NULL WHERE \"_id\" = \(try AnswerText.reference(saved[1]))", database: name)
        let required = try runDocServer(["check", "--store", database.absoluteString], timeout: 60)
        #expect(required.status == 1)
        #expect(required.errors.contains("title"), "\(required.errors)")
        #expect(required.errors.contains(database.host ?? "127.0.0.1"), "\(required.errors)")
        _ = try cluster.psql("UPDATE \"Song\" SET \"title\" = 'back' WHERE \"_id\" = \(try AnswerText.reference(saved[1]))", database: name)

        // A commit missing from the middle of the history.
        _ = try cluster.psql("DELETE FROM \"_graph_history\" WHERE seq = 2", database: name)
        let hole = try runDocServer(["check", "--store", database.absoluteString], timeout: 60)
        #expect(hole.status == 1)
        #expect(hole.errors.contains("no commit between 1 and 3"), "\(hole.errors)")
        _ = try cluster.psql("INSERT INTO \"_graph_history\" (seq, committed_at, author, entities, refs, kinds) VALUES (2, 0, '', '{}', '{}', '')",
                             database: name)

        // The reference sequence set back below the objects' references.
        _ = try cluster.psql("SELECT setval('\"_graph_references\"', 1)", database: name)
        let behind = try runDocServer(["check", "--store", database.absoluteString], timeout: 60)
        #expect(behind.status == 1)
        #expect(behind.errors.contains("the reference sequence stands at 1"), "\(behind.errors)")
    }
}
