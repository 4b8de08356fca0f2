import Foundation
import PostgresTestSupport
import GraphCore
@testable import PostgresStore
import Testing

/// The model's fetch indexes become PostgreSQL indexes that the translated predicates use.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct FetchIndexTests {
    /// PostgreSQL's plan of the store's statement for `request`, with sequential scans off
    /// (the test's tables are small, so the planner would scan them anyway).
    private func databasePlan(_ fixture: PostgresFixture, _ request: FetchRequest) throws -> String {
        let plan = try fixture.store.plan(for: request)
        try fixture.store.session.run("SET enable_seqscan = off")
        defer { _ = try? fixture.store.session.run("SET enable_seqscan = on") }
        let rows = try fixture.store.session.run("EXPLAIN " + plan.statement.text, plan.statement.binds)
        return try rows.compactMap { try $0.makeRandomAccess()[0].decode(String?.self) }.joined(separator: "\n")
    }

    @Test func anEqualityOnAnIndexedStringAndARangeOnAnIndexedIntegerUseTheirIndexes() throws {
        let fixture = try PostgresFixture()
        for n in 0..<20 { _ = try fixture.context.insert("Song", values: ["title": .string("Song \(n)"), "plays": .int(Int64(n))]) }
        try fixture.context.save()

        let byTitle = FetchRequest(entityName: "Song", predicate: try Predicate(format: "title == %@", "Song 3"))
        #expect(try databasePlan(fixture, byTitle).contains("_graph_index_1"))
        var byPlays = FetchRequest(entityName: "Song", predicate: try Predicate(format: "plays > %d", 15))
        byPlays.sortDescriptors = [SortDescriptor("plays", ascending: false)]
        #expect(try databasePlan(fixture, byPlays).contains("_graph_index_2"))
        #expect(try fixture.context.fetch(byTitle).count == 1)
        #expect(try fixture.context.fetch(byPlays).map { try $0.get("plays", as: Int64.self) } == [19, 18, 17, 16])
    }

    @Test func anIndexOnAToOneRelationshipIsItsForeignKeysAndACompoundOneAnswersAnEqualityAndARangeOrOrder() throws {
        let fixture = try PostgresFixture()
        let albums = try (0..<3).map { try fixture.context.insert("Album", values: ["title": .string("Album \($0)")]) }
        let artist = try fixture.context.insert("Artist", values: ["name": "Someone"])
        for album in albums {
            try album.setObject(artist, forKey: "artist")
            for n in 0..<10 {
                let song = try fixture.context.insert("Song", values: ["title": .string("Song \(n)"), "plays": .int(Int64(n))])
                try album.add(song, toKey: "songs")
            }
        }
        try fixture.context.save()
        // One fetch index on `album` alone: the foreign key's index, not a second one.
        #expect(try !fixture.store.layout.fetchIndexStatements.contains { $0.contains("(\"album\")") })

        let byAlbum = FetchRequest(entityName: "Song", predicate: try Predicate(format: "album == %@", albums[1]))
        #expect(try databasePlan(fixture, byAlbum).contains("Index"))
        #expect(try fixture.context.fetch(byAlbum).count == 10)
        let range = FetchRequest(entityName: "Song", predicate: try Predicate(format: "album == %@ AND plays > %d", albums[2], 6))
        #expect(try databasePlan(fixture, range).contains("_graph_index_3"))
        #expect(try fixture.context.fetch(range).map { try $0.get("plays", as: Int64.self) }.sorted() == [7, 8, 9])
        var top = FetchRequest(entityName: "Song", predicate: try Predicate(format: "album == %@", albums[0]))
        top.sortDescriptors = [SortDescriptor("plays", ascending: false)]
        top.fetchLimit = 2
        #expect(try databasePlan(fixture, top).contains("_graph_index_3"))
        #expect(try fixture.context.fetch(top).map { try $0.get("plays", as: Int64.self) } == [9, 8])
    }
}
