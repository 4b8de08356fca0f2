import Foundation
import GraphCore
import Testing

/// Saves through a `RemoteStore`: one context save is one `save` request, all or nothing on
/// the server, which gives inserted objects their permanent IDs and every saved object its
/// new version; its conflicts become GraphCore's, so merge policies work as with a local store.
@Suite struct RemoteStoreSaveTests {
    @Test func oneContextSaveIsOneSaveRequestForInsertsUpdatesAndDeletes() throws {
        let store = try StoreFixture(.documentServer)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        let kept = try store.context.insert("Song", values: ["title": "So What"])
        let dropped = try store.context.insert("Song", values: ["title": "Flamenco Sketches"])
        try album.setObjects([kept, dropped], forKey: "songs")
        try store.context.save()

        let context = try store.secondContext()
        let songs = try context.all("Song", sortedBy: "title")
        let loadedAlbum = try context.existingObject(with: album.objectID)
        let (loadedDropped, loadedKept) = (try #require(songs.first), try #require(songs.last))
        try loadedKept.set("title", "So What (take 2)")
        try context.delete(loadedDropped)
        let added = try context.insert("Song", values: ["title": "Blue in Green"])
        try added.setObject(loadedAlbum, forKey: "album")

        let saving = try Traffic.of(try context.remoteClient()) { try context.save() }

        #expect(saving.requests == 1)
        let reader = try store.secondContext()
        #expect(try strings("title", of: reader.all("Song", sortedBy: "title")) == ["Blue in Green", "So What (take 2)"])
        #expect(try reader.existingObject(with: album.objectID).ids("songs") == [kept.objectID, added.objectID])
    }

    @Test func insertedObjectsGetPermanentIDsOfTheServersStoreAndTheirRelationshipsResolve() throws {
        let store = try StoreFixture(.documentServer)
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        let songs = try ["So What", "Blue in Green"].map { try store.context.insert("Song", values: ["title": .string($0)]) }
        let tag = try store.context.insert("Tag", values: ["name": "modal"])
        try album.setObjects(songs, forKey: "songs")
        try tag.setObjects(songs, forKey: "songs")

        try store.context.save()

        let uuid = try #require(try store.storeUUIDInFile())
        #expect(try store.context.remoteClient().lastHello?.storeUUID == uuid)
        for object in [album, tag] + songs {
            #expect(object.objectID.uriRepresentation.hasPrefix("graph://\(uuid)/\(object.entity.name)/"))
            #expect(object.version == 1)
        }
        #expect(try album.ids("songs") == songs.map(\.objectID))
        #expect(try songs.map { try $0.id("album") } == [album.objectID, album.objectID])
        #expect(try tag.ids("songs") == songs.map(\.objectID))

        let reader = try store.secondContext()
        #expect(try reader.existingObject(with: album.objectID).ids("songs") == songs.map(\.objectID))
        #expect(try reader.existingObject(with: songs[1].objectID).ids("tags") == [tag.objectID])
    }

    @Test func anObjectSavedOnceSavesAgainAtTheVersionTheServerGaveIt() throws {
        let store = try StoreFixture(.documentServer)
        let song = try store.context.insert("Song", values: ["title": "So What"])
        try store.context.save()
        let client = try store.context.remoteClient()

        for (plays, version) in [(Int64(1), Int64(2)), (2, 3)] {
            try song.set("plays", plays)
            let saving = try Traffic.of(client) { try store.context.save() }
            #expect(saving.requests == 1)
            #expect(song.version == version)
        }
        let stored = try store.secondContext().existingObject(with: song.objectID)
        #expect(stored.version == 3)
        #expect(try stored.get("plays") as Int64 == 2)
    }

    @Test func aConflictWithAnotherCoordinatorNamesTheVersionsAndStoreTrumpsThenSaves() throws {
        let store = try StoreFixture(.documentServer)
        let song = try store.context.insert("Song", values: ["title": "Blue", "plays": 1])
        try store.context.save()
        let other = try store.secondContext()
        let theirs = try other.existingObject(with: song.objectID)
        try song.set("title", "Ours")
        try store.context.save()

        try theirs.set("plays", Int64(5))
        let client = try other.remoteClient()
        var error: GraphError?
        let failing = Traffic.of(client) { error = #expect(throws: GraphError.self) { try other.save() } }
        #expect(conflicts(of: error) == [Conflict(objectID: song.objectID, expectedVersion: 1, currentVersion: 2)])
        #expect(failing.requests == 1)

        other.mergePolicy = .storeTrumps
        let merging = try Traffic.of(client) { try other.save() }
        // The save (a conflict again), a `get` of the server's values (the conflict dropped the
        // cached row), and the merged save.
        #expect(merging.requests == 3)
        #expect(theirs.version == 3)
        let stored = try store.secondContext().existingObject(with: song.objectID)
        #expect(try stored.string("title") == "Ours")
        #expect(try stored.get("plays") as Int64 == 5)
        #expect(stored.version == 3)
    }
}
