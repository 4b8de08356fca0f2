import Foundation
import PostgresTestSupport
import GraphCore
@testable import PostgresStore
import Testing

/// A connection the database ends (a restart, an administrator's `pg_terminate_backend`) fails
/// the call in flight with a clear error, and the next call makes a new one.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct ConnectionLossTests {
    @Test func aConnectionEndedByTheDatabaseIsMadeAgainByTheNextCall() throws {
        let fixture = try PostgresFixture()
        let song = try fixture.context.insert("Song", values: ["title": "Blue"])
        try fixture.context.save()
        let pid = try #require(try fixture.store.session.run("SELECT pg_backend_pid()").first?.makeRandomAccess()[0].decode(Int32.self))

        let admin = try fixture.secondCoordinator()
        var terminate = SQLStatement()
        terminate.text = "SELECT pg_terminate_backend(\(terminate.parameter(pid)))"
        try admin.store.session.run(terminate.text, terminate.binds)

        // The call on the ended connection fails, saying where; the next one reconnects.
        try song.set("title", "Green")
        var saved = false
        for _ in 0..<2 where !saved {
            do {
                try fixture.context.save()
                saved = true
            } catch let error as PostgresStoreError {
                #expect("\(error)".contains("127.0.0.1"))
            }
        }
        #expect(saved)
        let reader = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        #expect(try reader.existingObject(with: song.objectID).get("title", as: String.self) == "Green")
    }
}
