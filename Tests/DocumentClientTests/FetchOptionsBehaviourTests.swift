import Foundation
import GraphCore
import Testing

/// Sort descriptors, fetchLimit and fetchOffset, count(for:) and fetchObjectIDs on the
/// ``Catalogue``, each fetch in a fresh context so that the store answers it.
@Suite struct FetchOptionsBehaviourTests {
    @Test(arguments: StoreKind.allCases)
    func sortDescriptorsOrderByAKeyPathThenDescending(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        _ = try Catalogue.insert(into: store.context)
        let request = FetchRequest(entityName: "Song", sortDescriptors: [
            SortDescriptor("album.title"), SortDescriptor("plays", ascending: false),
        ])
        let context = store.freshContext()
        let songs = try context.fetch(request)
        #expect(try strings("title", of: songs) == [
            "Blue in Green", "So What", "Freddie Freeloader", "All Blues",  // Kind of Blue
            "Solea", "Concierto de Aranjuez",                                 // Sketches of Spain
            "alice in Wonderland", "Gloria's Step",                           // Sunday at the Village Vanguard
        ])
    }

    @Test(arguments: StoreKind.allCases)
    func stringsSortPlainOrIgnoringCaseAndDescending(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        _ = try Catalogue.insert(into: store.context)
        let context = store.freshContext()
        let predicate = try GraphCore.Predicate(format: "title BEGINSWITH[c] 'a' OR title BEGINSWITH 'B' OR title BEGINSWITH 'S'")
        func titles(_ descriptor: GraphCore.SortDescriptor) throws -> [String] {
            try strings("title", of: context.fetch(FetchRequest(entityName: "Song", predicate: predicate, sortDescriptors: [descriptor])))
        }
        // Plain: capitals before lowercase letters.
        #expect(try titles(SortDescriptor("title")) == ["All Blues", "Blue in Green", "So What", "Solea", "alice in Wonderland"])
        #expect(try titles(SortDescriptor("title", ascending: false, caseInsensitive: true))
                == ["Solea", "So What", "Blue in Green", "All Blues", "alice in Wonderland"])
    }

    @Test(arguments: StoreKind.allCases)
    func limitAndOffsetPageThroughASortedResult(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        _ = try Catalogue.insert(into: store.context)
        let context = store.freshContext()
        var request = FetchRequest(entityName: "Song", sortDescriptors: [
            SortDescriptor("plays", ascending: false), SortDescriptor("title"),
        ])
        let all = try strings("title", of: context.fetch(request))
        #expect(all == ["Blue in Green", "Solea", "alice in Wonderland", "So What", "Concierto de Aranjuez",
                        "Gloria's Step", "Freddie Freeloader", "All Blues"])

        request.fetchOffset = 2
        request.fetchLimit = 3
        #expect(try strings("title", of: context.fetch(request)) == ["alice in Wonderland", "So What", "Concierto de Aranjuez"])
        request.fetchOffset = 6
        #expect(try strings("title", of: context.fetch(request)) == ["Freddie Freeloader", "All Blues"])
        request.fetchOffset = 8
        #expect(try context.fetch(request).isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func countAndObjectIDsAgreeWithTheFetch(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let catalogue = try Catalogue.insert(into: store.context)
        let context = store.freshContext()
        var request = FetchRequest(entityName: "Song", predicate: try .format("plays >= %d", 5))
        let expected: Set<String> = ["Blue in Green", "Solea", "alice in Wonderland", "So What", "Concierto de Aranjuez", "Gloria's Step"]

        #expect(try context.count(for: request) == expected.count)
        #expect(catalogue.songTitles(of: try context.fetchObjectIDs(request)) == expected)
        #expect(context.registeredObjects.isEmpty, "count and IDs make no objects")
        #expect(try context.count("Album") == 3)
        #expect(try context.count("Tag") == 4)

        request.fetchLimit = 4
        #expect(try context.count(for: request) == 4)
        #expect(try context.fetchObjectIDs(request).count == 4)
        request.fetchOffset = 5
        #expect(try context.count(for: request) == 1)

        // Sorted IDs come in the sort's order.
        var sorted = FetchRequest(entityName: "Song", predicate: try .format("album.artist.name == %@", "Bill Evans"),
                                  sortDescriptors: [SortDescriptor("title", ascending: false)])
        sorted.fetchLimit = 1
        let alice = try #require(catalogue.songs["alice in Wonderland"])
        #expect(try context.fetchObjectIDs(sorted) == [alice])
    }
}
