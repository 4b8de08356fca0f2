import Foundation
import GraphCore
import Testing

/// Fetches with predicates select the same songs of the ``Catalogue`` on every store. Each fetch
/// runs in a fresh context, so the store answers it (for a DocumentServer: the server).
@Suite struct PredicateBehaviourTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let format: String
        let arguments: [PredicateValue]
        let titles: Set<String>

        init(_ format: String, _ arguments: [PredicateValue] = [], _ titles: Set<String>) {
            self.format = format
            self.arguments = arguments
            self.titles = titles
        }

        var testDescription: String { format }
    }

    static let cases: [Case] = [
        Case("plays > %d", [7], ["Blue in Green", "Solea", "alice in Wonderland"]),
        Case("plays BETWEEN {3, 5}", [], ["Freddie Freeloader", "Concierto de Aranjuez", "Gloria's Step"]),
        Case("title BEGINSWITH[c] %@", ["a"], ["All Blues", "alice in Wonderland"]),
        Case("title BEGINSWITH %@", ["a"], ["alice in Wonderland"]),
        Case("title CONTAINS[c] 'blue' AND NOT title ENDSWITH 's'", [], ["Blue in Green"]),
        Case("title IN %@", [["So What", "Solea", "No Such Song"]], ["So What", "Solea"]),
        Case("album.title == %@", ["Sketches of Spain"], ["Concierto de Aranjuez", "Solea"]),
        Case("album.artist.name == 'Bill Evans' AND plays >= 5", [], ["Gloria's Step", "alice in Wonderland"]),
        Case("ANY tags.name == %@", ["blues"], ["Freddie Freeloader", "All Blues"]),
        Case("tags.@count >= 2", [], ["So What", "Blue in Green", "All Blues"]),
        Case("tags.@count == 0", [], ["Concierto de Aranjuez"]),
        // Before 1960-01-01T00:00:00Z: the Kind of Blue songs.
        Case("album.released < %@", [.value(.date(Date(timeIntervalSince1970: -315_619_200)))],
             ["So What", "Freddie Freeloader", "Blue in Green", "All Blues"]),
        Case("album.price > %@", [.value(.decimal(Decimal(12)))], ["Gloria's Step", "alice in Wonderland"]),
        Case("rating == nil AND plays == 0", [], ["All Blues"]),
    ]

    @Test(arguments: StoreKind.allCases, cases)
    func aPredicateSelectsTheSameSongsOnEveryStore(kind: StoreKind, test: Case) throws {
        let store = try StoreFixture(kind)
        let catalogue = try Catalogue.insert(into: store.context)
        let predicate = try GraphCore.Predicate(format: test.format, arguments: test.arguments)
        let request = FetchRequest(entityName: "Song", predicate: predicate)

        let context = store.freshContext()
        let songs = try context.fetch(request)
        #expect(catalogue.songTitles(of: songs.map(\.objectID)) == test.titles)
        #expect(Set(try strings("title", of: songs)) == test.titles)
        #expect(songs.count == test.titles.count, "each song once")
    }

    @Test(arguments: StoreKind.allCases)
    func aPredicateOnAnObjectSelectsItsRelatedObjects(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let catalogue = try Catalogue.insert(into: store.context)
        let album = try #require(catalogue.albums["Sunday at the Village Vanguard"])
        let context = store.freshContext()

        let request = FetchRequest(entityName: "Song", predicate: try .format("album == %@", Value.object(album)))
        #expect(catalogue.songTitles(of: try context.fetchObjectIDs(request)) == ["Gloria's Step", "alice in Wonderland"])
        let solea = try #require(catalogue.songs["Solea"])
        let spain = try #require(catalogue.albums["Sketches of Spain"])
        let holding = FetchRequest(entityName: "Album", predicate: try .format("%@ IN songs", Value.object(solea)))
        #expect(try context.fetchObjectIDs(holding) == [spain])
    }
}
