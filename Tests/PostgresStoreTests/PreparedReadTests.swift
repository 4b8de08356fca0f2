import Foundation
import GraphCore
import PostgresTestSupport
@testable import PostgresStore
import Testing

/// A store's reads run as statements prepared once per connection
/// (`DatabaseSession.runPrepared`): PostgreSQL then plans each shape once, not on every read.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct PreparedReadTests {
    /// The statements prepared on the session's connection, by their text.
    private func prepared(_ session: DatabaseSession) throws -> [String] {
        try session.run("SELECT statement FROM pg_prepared_statements").compactMap { try $0.makeRandomAccess()[0].decode(String?.self) }
    }

    private func number(_ statement: SQLStatement, _ session: DatabaseSession) throws -> Int64? {
        try session.runPrepared(statement).first?.makeRandomAccess()[0].decode(Int64?.self)
    }

    @Test func aReadIsPreparedOnceAndRunAgainWithOtherValuesOnANewConnectionToo() throws {
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        for value in [Int64(1), 2, 3] {
            var statement = SQLStatement()
            statement.text = "SELECT \(statement.parameter(value)) * 10"
            #expect(try number(statement, session) == value * 10)
        }
        let statements = try prepared(session)
        #expect(statements.filter { $0.contains("* 10") }.count == 1, "\(statements)")

        // The database ends the connection: the next read makes a new one and prepares again there.
        let pid = try #require(try session.run("SELECT pg_backend_pid()").first?.makeRandomAccess()[0].decode(Int32.self))
        var terminate = SQLStatement()
        terminate.text = "SELECT pg_terminate_backend(\(terminate.parameter(pid)))"
        try fixture.secondCoordinator().store.session.run(terminate.text, terminate.binds)
        var statement = SQLStatement()
        statement.text = "SELECT \(statement.parameter(Int64(4))) * 10"
        var answer: Int64?
        for _ in 0..<2 where answer == nil { answer = try? number(statement, session) }
        #expect(answer == 40)
    }

    @Test func aStatementWhosePreparationFailedIsPreparedAgainOnceItCanBe() throws {
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        var statement = SQLStatement()
        statement.text = "SELECT count(*) + \(statement.parameter(Int64(1))) FROM later_table"
        #expect(throws: PostgresStoreError.self) { try number(statement, session) }
        try session.run("CREATE TABLE later_table (x bigint)")
        #expect(try number(statement, session) == 1)
    }

    @Test func oneTextWithAnotherNumberOfValuesIsAnotherStatement() throws {
        // A text may bind a value it does not use: prepared with other parameters, it is another statement.
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        #expect(try number(SQLStatement("SELECT 7::bigint"), session) == 7)
        var unused = SQLStatement("SELECT 7::bigint")
        _ = unused.parameter(Int64(99))
        #expect(try number(unused, session) == 7)
    }

    @Test func aStatementThatKeepsFailingPreparesNoMoreThanTheLimit() throws {
        // Each failure gives the statement a new name: those given up count, or a request that
        // fails again and again would prepare statements in the backend without end.
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        for _ in 0..<(DatabaseSession.preparedLimit + 20) {
            var statement = SQLStatement()
            statement.text = "SELECT 1 / \(statement.parameter(Int64(0)))"
            #expect(throws: PostgresStoreError.self) { try number(statement, session) }
        }
        #expect(try prepared(session).count <= DatabaseSession.preparedLimit)
    }

    @Test func pastTheLimitStatementsRunUnpreparedAndStillAnswer() throws {
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        for shape in 0..<(DatabaseSession.preparedLimit + 20) {
            var statement = SQLStatement()
            statement.text = "SELECT \(statement.parameter(Int64(shape))) + \(shape)"
            #expect(try number(statement, session) == Int64(shape * 2))
        }
        #expect(try prepared(session).count <= DatabaseSession.preparedLimit)
    }

    @Test func aServersReadsOfObjectsAndFetchesAreOneStatementEachAndPrepared() throws {
        let fixture = try PostgresFixture()
        let album = try fixture.context.insert("Album", values: ["title": "Blue"])
        for index in 0..<3 {
            let song = try fixture.context.insert("Song", values: ["title": .string("Song \(index)"), "plays": .int(Int64(index))])
            try song.setObject(album, forKey: "album")
        }
        try fixture.context.save()
        let reader = try fixture.store.openObjectReader()
        defer { reader.close() }
        let (albums, through) = try reader.committedSnapshots(of: [album.objectID])
        // The to-many relationship came with the row.
        let songs = try #require(albums.first?.value(forKey: "songs"))
        guard case .objects(let targets) = songs else { Issue.record("songs: \(songs)"); return }
        #expect(targets.count == 3)
        var request = FetchRequest(entityName: "Song")
        request.predicate = try Predicate(format: "plays >= 1")
        let (result, fetchedThrough) = try reader.fetch(request)
        #expect(result.snapshots.count == 2 && fetchedThrough == through)
        #expect(try reader.explain(request).contains("max(seq)"))
    }

    @Test func rowsPastTheirLimitStopTheReadAndTheConnectionGoesOn() throws {
        let fixture = try PostgresFixture()
        let session = fixture.store.session
        var statement = SQLStatement()
        statement.text = "SELECT n FROM generate_series(1, \(statement.parameter(Int64(100_000)))) AS n"
        // 100,000 rows of 8 bytes: past 10,000 bytes, refused.
        #expect(throws: PostgresStoreError.resultTooLarge(limit: 10_000)) { try session.runPrepared(statement, limit: 10_000) }
        #expect(try session.runPrepared(statement, limit: 800_000).count == 100_000)
        #expect(try number(SQLStatement("SELECT 7::bigint"), session) == 7)
        // The statement ran: it stays prepared under its one name.
        #expect(try prepared(session).filter { $0.contains("generate_series") }.count == 1)
        // Past the prepared statements a connection keeps, a statement runs unprepared: the same limit.
        for shape in 0..<DatabaseSession.preparedLimit {
            _ = try number(SQLStatement("SELECT \(shape)::bigint"), session)
        }
        var unprepared = SQLStatement()
        unprepared.text = "SELECT n + 1 FROM generate_series(1, \(unprepared.parameter(Int64(100_000)))) AS n"
        #expect(throws: PostgresStoreError.resultTooLarge(limit: 10_000)) { try session.runPrepared(unprepared, limit: 10_000) }
        #expect(try session.runPrepared(unprepared).count == 100_000)
    }

    @Test func aFetchPastItsResultLimitIsRefusedOnlyWhereItsRowsAreItsResult() throws {
        let fixture = try PostgresFixture()
        for index in 0..<2_000 {
            _ = try fixture.context.insert("Song", values: ["title": .string("Song \(index)"), "plays": .int(Int64(index % 7))])
        }
        try fixture.context.save()
        let reader = try fixture.store.openObjectReader()
        defer { reader.close() }
        var request = FetchRequest(entityName: "Song")
        request.resultBytesLimit = 4_096
        #expect(throws: GraphError.resultTooLarge(entity: "Song", limit: 4_096)) { try reader.fetch(request) }
        // A page, a count: within the limit, or no rows of objects at all.
        request.fetchLimit = 10
        #expect(try reader.fetch(request).result.snapshots.count == 10)
        request.fetchLimit = 0
        request.resultType = .count
        #expect(try reader.fetch(request).result.count == 2_000)
        // A context's fetch on the store: the same error, and the store goes on.
        let context = ObjectContext(coordinator: try fixture.secondCoordinator().coordinator)
        var all = FetchRequest(entityName: "Song")
        all.resultBytesLimit = 4_096
        #expect(throws: GraphError.resultTooLarge(entity: "Song", limit: 4_096)) { try context.fetch(all) }
        all.resultBytesLimit = nil
        #expect(try context.fetch(all).count == 2_000)
    }
}
