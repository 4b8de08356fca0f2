import Foundation
import GraphCore
import Testing

/// What one context sees of another's save: a context keeps the values it read until it
/// refreshes the object or fetches afresh.
///
/// No context merges another's save by itself here: InMemory and JSON contexts could merge the
/// coordinator's save notifications, but nothing tells a second coordinator over the network
/// about a save, so the tests use what works for every store: refresh and fetch.
@Suite struct ChangeVisibilityBehaviourTests {
    @Test(arguments: StoreKind.allCases)
    func refreshingWithoutMergingSeesAnotherContextsSavedChange(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        try store.context.save()

        let other = try store.secondContext()
        let theirs = try other.existingObject(with: song.objectID)
        try theirs.set("plays", Int64(8))
        try theirs.set("title", "So What (take 2)")
        try other.save()
        #expect(theirs.version == 2)

        #expect(try song.get("plays") as Int64 == 7, "the values read stay until refreshed")
        #expect(song.version == 1)
        try store.context.refresh(song, mergeChanges: false)
        #expect(song.isFault)
        #expect(try song.get("plays") as Int64 == 8)
        #expect(try song.string("title") == "So What (take 2)")
        #expect(song.version == 2)
    }

    @Test(arguments: StoreKind.allCases)
    func refreshingWithoutMergingDropsOurUnsavedChanges(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        try store.context.save()

        let other = try store.secondContext()
        try other.existingObject(with: song.objectID).set("plays", Int64(8))
        try other.save()

        try song.set("title", "Ours, unsaved")
        try store.context.refresh(song, mergeChanges: false)
        #expect(!store.context.hasChanges)
        #expect(try song.string("title") == "So What")
        #expect(try song.get("plays") as Int64 == 8)
    }

    @Test(arguments: StoreKind.allCases)
    func anotherContextsInsertsUpdatesAndDeletesAreSeenByFetchAndRefresh(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let catalogue = try Catalogue.insert(into: store.context)
        let other = try store.secondContext()
        let before = try other.all("Song")  // the second context has read every song
        #expect(before.count == Catalogue.songRows.count)
        let soWhat = try #require(catalogue.songs["So What"])
        let solea = try #require(catalogue.songs["Solea"])
        let blue = try #require(catalogue.albums["Kind of Blue"])

        // The first context changes one song, deletes another, adds a third to an album.
        try store.context.existingObject(with: soWhat).set("plays", Int64(70))
        try store.context.delete(store.context.existingObject(with: solea))
        let added = try store.context.insert("Song", values: ["title": "Flamenco Sketches", "plays": 1])
        try added.setObject(store.context.existingObject(with: blue), forKey: "album")
        try store.context.save()

        // A fetch sees the insert and the delete at once...
        let titles = Set(try strings("title", of: other.all("Song")))
        #expect(titles.contains("Flamenco Sketches"))
        #expect(!titles.contains("Solea"))
        #expect(titles.count == Catalogue.songRows.count)
        // ...and matches on the saved values, while an object already read keeps its values.
        let popular = try other.fetch(FetchRequest(entityName: "Song", predicate: try .format("plays >= 70")))
        #expect(popular.map(\.objectID) == [soWhat])
        let seen = other.object(with: soWhat)
        #expect(try seen.get("plays") as Int64 == 7)
        try other.refresh(seen, mergeChanges: false)
        #expect(try seen.get("plays") as Int64 == 70)

        let album = try other.existingObject(with: blue)
        try other.refresh(album, mergeChanges: false)
        #expect(try album.ids("songs").last == added.objectID)
        #expect(try album.ids("songs").count == 5)

        // A context that never read anything sees it all.
        let fresh = try store.secondContext()
        #expect(try fresh.existingObject(with: soWhat).get("plays") as Int64 == 70)
        #expect(try fresh.count("Song") == Catalogue.songRows.count)
    }
}
