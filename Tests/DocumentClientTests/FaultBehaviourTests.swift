import Foundation
import GraphCore
import Testing

/// Faults: objects whose values are not loaded yet, loaded the first time one is read.
@Suite struct FaultBehaviourTests {
    @Test(arguments: StoreKind.allCases)
    func objectsFetchedAsFaultsLoadTheirValuesOnFirstRead(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let catalogue = try Catalogue.insert(into: store.context)
        let context = store.freshContext()
        var request = FetchRequest(entityName: "Song")
        request.returnsObjectsAsFaults = true

        let faults = try context.fetch(request)
        #expect(faults.count == Catalogue.songRows.count)
        #expect(faults.allSatisfy { $0.isFault })
        #expect(Set(faults.map(\.objectID)) == Set(catalogue.songs.values))

        let first = try #require(faults.first)
        let title = try first.string("title")
        #expect(!first.isFault)
        #expect(catalogue.songs[title] == first.objectID)
        #expect(try first.get("plays") as Int64 == Catalogue.songRows.first { $0.title == title }?.plays)
        #expect(faults.dropFirst().allSatisfy { $0.isFault }, "reading one object loads only that one")
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectByIDIsAFaultUntilReadAndThenHoldsTheSavedValues(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        try song.setObject(album, forKey: "album")
        try store.context.save()

        let context = try store.secondContext()
        let fault = context.object(with: song.objectID)
        #expect(fault.isFault)
        #expect(try fault.get("plays") as Int64 == 7)
        #expect(!fault.isFault)
        #expect(fault.version == 1)
        let related = try #require(try fault.object(forKey: "album"))
        #expect(related.objectID == album.objectID)
        #expect(try related.string("title") == "Kind of Blue")
    }

    @Test(arguments: StoreKind.allCases)
    func aFaultOfAnObjectDeletedMeanwhileThrowsObjectNotFoundWhenRead(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let song = try store.context.insert("Song", values: ["title": "So What"])
        try store.context.save()

        let other = try store.secondContext()
        let fault = other.object(with: song.objectID)
        try store.context.delete(song)
        try store.context.save()

        #expect(throws: GraphError.objectNotFound(song.objectID)) { try fault.value(forKey: "title") }
        #expect(fault.isFault)
    }
}
