import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `docserver migrate` on a database: the objects keep their IDs, versions and values through a
/// lightweight step, the old tables stay whole in a schema of their own, and a migration that
/// would lose data, or that finds servers on the database, changes nothing.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct DatabaseMigrationTests {
    static let first = #"""
        {"entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}, {"name": "draft", "type": "bool", "optional": true}],
          "relationships": [{"name": "tags", "destination": "Label", "toMany": true, "optional": true, "inverse": "notes"}]},
          {"name": "Label", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "notes", "destination": "Note", "toMany": true, "optional": true, "inverse": "tags"}]}]}
        """#
    /// `priority` added with a default, `draft` removed (a loss to accept).
    static let second = #"""
        {"entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"},
            {"name": "priority", "type": "int64", "optional": true, "default": 3}],
          "relationships": [{"name": "tags", "destination": "Label", "toMany": true, "optional": true, "inverse": "notes"}]},
          {"name": "Label", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "notes", "destination": "Note", "toMany": true, "optional": true, "inverse": "tags"}]}]}
        """#

    @Test func aDatabaseIsMigratedInOneTransactionKeepingIDsVersionsAndTheOldTables() throws {
        let directory = try TemporaryDirectory()
        let v1 = directory.file("v1.model.json"), v2 = directory.file("v2.model.json")
        try Self.first.write(to: v1, atomically: true, encoding: .utf8)
        try Self.second.write(to: v2, atomically: true, encoding: .utf8)
        let database = try PostgresCluster.newDatabase()
        let name = database.lastPathComponent
        let cluster = try PostgresCluster.shared()
        let server = try ServerProcess(store: nil, arguments: ["--store", database.absoluteString, "--model", v1.path],
                                       workingDirectory: directory.url, timeout: 60)
        let client = try WireClient(port: server.port)
        let seeded = try client.result("save", ["insert": [
            ["id": "a", "entity": "Note", "values": ["text": "first", "draft": true, "tags": ["x"]]],
            ["id": "b", "entity": "Note", "values": ["text": "second"]],
            ["id": "x", "entity": "Label", "values": ["name": "home"]],
        ]])
        let (a, b, x) = (try seeded.id("a"), try seeded.id("b"), try seeded.id("x"))
        let last = try client.result("save", ["update": [["id": b, "version": 1, "values": ["text": "second, edited"]]]])
        let arguments = ["migrate", "--store", database.absoluteString, "--from-model", v1.path, "--model", v2.path]

        // A server on the database: refused, nothing changed.
        let busy = try runDocServer(arguments + ["--accept-loss", "Note.draft"], timeout: 60)
        #expect(busy.status == 2)
        #expect(busy.errors.contains("is in use"), "\(busy.errors)")
        _ = try server.stop()

        // The loss of `draft` is named and refused unless accepted.
        let refused = try runDocServer(arguments, timeout: 60)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("draft"), "\(refused.errors)")
        let dry = try runDocServer(arguments + ["--accept-loss", "Note.draft", "--dry-run"], timeout: 60)
        #expect(dry.status == 0, "\(dry.errors)")
        #expect(dry.output.contains("dry run: nothing is written"))
        #expect(try cluster.psql("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '_graph_backup_%'", database: name) == "0\n")

        let migrated = try runDocServer(arguments + ["--accept-loss", "Note.draft"], timeout: 60)
        #expect(migrated.status == 0, "\(migrated.errors)")
        #expect(migrated.output.contains("the old tables are kept in the schema _graph_backup_"), "\(migrated.output)")
        let schema = try cluster.psql("SELECT nspname FROM pg_namespace WHERE nspname LIKE '_graph_backup_%'", database: name)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try cluster.psql("SELECT count(*) FROM \"\(schema)\".\"Note\" WHERE draft", database: name) == "1\n",
                "the old rows, draft included, are kept")
        let checked = try runDocServer(["check", "--store", database.absoluteString, "--model", v2.path], timeout: 60)
        #expect(checked.status == 0, "\(checked.errors)")

        let again = try runDocServer(arguments + ["--accept-loss", "Note.draft"], timeout: 60)
        #expect(again.status == 0)
        #expect(again.output.contains("nothing to migrate"), "\(again.output)")

        let after = try ServerProcess(store: nil, arguments: ["--store", database.absoluteString, "--model", v2.path],
                                      workingDirectory: directory.url, timeout: 60)
        let reader = try WireClient(port: after.port)
        let got = try reader.result("get", ["ids": [a, b, x]])
        let objects = got.objects.compactMap { $0 }
        #expect(objects.count == 3)
        let values = objects.map { $0["values"] as? [String: Any] ?? [:] }
        #expect(values[0]["text"] as? String == "first")
        #expect(values[0]["priority"] as? Int == 3, "the new attribute's default")
        #expect(values[0]["draft"] == nil)
        #expect(values[0]["tags"] as? [String] == [x])
        #expect(values[1]["text"] as? String == "second, edited")
        #expect(objects[1]["version"] as? Int == 2, "versions are kept")
        let next = try reader.result("save", ["insert": [["id": "c", "entity": "Note", "values": ["text": "third", "priority": 1]]]])
        #expect(next.seq == last.seq + 2, "the migration is commit \(last.seq + 1)")
        _ = try after.stop()
    }

    @Test func aDatabaseOfNoVersionGivenIsRefused() throws {
        let directory = try TemporaryDirectory()
        let v2 = directory.file("v2.model.json")
        try Self.second.write(to: v2, atomically: true, encoding: .utf8)
        let database = try PostgresCluster.newDatabase()
        let server = try DatabaseServers.server(on: database)  // the sample model
        _ = try WireClient(port: server.port).result("save", ["insert": [["id": "s", "entity": "Song", "values": ["title": "t", "plays": 1]]]])
        _ = try server.stop()
        let refused = try runDocServer(["migrate", "--store", database.absoluteString, "--model", v2.path], timeout: 60)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("127.0.0.1"), "\(refused.errors)")
    }
}
