import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore
import Testing

/// A key path after an index (`songs[FIRST].title`, `album[FIRST].title`) is left to
/// GraphCore: SQL narrows by what it can translate, and the answer is the in-memory store's.
@Suite(.enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct KeyAfterIndexTests {
    @Test func aKeyAfterAnIndexIsEvaluatedByGraphCoreAndAnswersAsTheInMemoryStore() throws {
        let postgres = try PostgresFixture()
        let memoryCoordinator = StoreCoordinator(model: postgres.model)
        try memoryCoordinator.addPersistentStore(type: "InMemory")
        for context in [postgres.context, ObjectContext(coordinator: memoryCoordinator)] {
            let artist = try context.insert("Artist", values: ["name": "Miles"])
            for (title, songs) in [("Kind of Blue", ["So What", "Freddie"]), ("Sketches", ["Saeta"]), ("Empty", [])] {
                let album = try context.insert("Album", values: ["title": .string(title), "artist": .object(artist.objectID)])
                for (n, name) in songs.enumerated() {
                    let song = try context.insert("Song", values: ["title": .string(name), "plays": .int(Int64(n * 10))])
                    try song.setObject(album, forKey: "album")
                }
            }
            try context.save()
        }
        let fromPostgres = ObjectContext(coordinator: try postgres.secondCoordinator().coordinator)
        let fromMemory = ObjectContext(coordinator: memoryCoordinator)
        let cases: [(entity: String, format: String, expected: [String])] = [
            ("Album", "songs[FIRST].title == 'So What'", ["Kind of Blue"]),
            ("Album", "songs[LAST].title == 'Freddie'", ["Kind of Blue"]),
            ("Album", "songs[1].plays == 10", ["Kind of Blue"]),
            ("Album", "songs[FIRST].title == nil", ["Empty"]),
            ("Album", "songs[SIZE] == 1", ["Sketches"]),
            ("Song", "album[FIRST].title == 'Sketches'", ["Saeta"]),
            ("Song", "plays == 0 AND album[FIRST].songs[LAST].title == 'Freddie'", ["So What"]),
        ]
        for (entity, format, expected) in cases {
            let request = FetchRequest(entityName: entity, predicate: try Predicate(format: format))
            let key = entity == "Album" || entity == "Song" ? "title" : "name"
            let got = try fromPostgres.fetch(request).map { try $0.get(key) as String }.sorted()
            let memory = try fromMemory.fetch(request).map { try $0.get(key) as String }.sorted()
            #expect(got == expected, "\(format)")
            #expect(memory == expected, "\(format)")
            #expect(try !postgres.store.explain(request).predicateInSQL, "\(format)")
        }
    }
}
