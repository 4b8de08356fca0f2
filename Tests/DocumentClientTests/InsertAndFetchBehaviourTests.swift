import Foundation
import GraphCore
import Testing

/// Inserting and saving objects, then reading them back: from a fresh context, from a second
/// context, and from the store reopened.
@Suite struct InsertAndFetchBehaviourTests {
    @Test(arguments: StoreKind.allCases)
    func savedObjectsAreFetchedFromAFreshContextWithPermanentIDs(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let titles = ["So What", "Blue in Green", "All Blues"]
        let inserted = try titles.map { try store.context.insert("Song", values: ["title": .string($0)]) }
        #expect(inserted.allSatisfy { $0.objectID.isTemporary })
        try store.context.save()

        #expect(inserted.allSatisfy { !$0.objectID.isTemporary && !$0.hasChanges && $0.version == 1 })
        #expect(Set(inserted.map(\.objectID)).count == titles.count)
        let fresh = store.freshContext()
        let fetched = try fresh.all("Song", sortedBy: "title")
        #expect(try strings("title", of: fetched) == titles.sorted())
        #expect(Set(fetched.map(\.objectID)) == Set(inserted.map(\.objectID)))
        #expect(fetched.allSatisfy { $0.version == 1 })
        #expect(try fetched.map { try $0.get("plays") as Int64 } == [0, 0, 0], "the model's default")
        #expect(fetched.allSatisfy { fetchedObject in !inserted.contains { $0 === fetchedObject } },
                "a fresh context has objects of its own")
    }

    @Test(arguments: StoreKind.allCases)
    func anObjectIDFromOneContextNamesTheSameObjectInTheSecond(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        try store.context.save()
        let id = song.objectID

        let second = try store.secondContext()
        let seen = try second.existingObject(with: id)
        #expect(seen.objectID == id)
        #expect(try seen.string("title") == "So What")
        #expect(try seen.get("plays") as Int64 == 7)
        // The second context finds the object again by the same ID, not a copy.
        #expect(try second.fetch(FetchRequest(entityName: "Song")).first === seen)

        // The store UUID in the ID: for a store in this process it is the store's own; over the
        // network it comes from the server (its store file's storeUUID), so that both coordinators,
        // each with its own RemoteStore, give the same object the same ID.
        #expect(id.storeIdentifier == store.storeIdentifier)
        switch kind {
        case .inMemory:
            #expect(try store.storeUUIDInFile() == nil)
        case .json, .documentServer:
            #expect(try store.storeUUIDInFile()?.lowercased() == id.storeIdentifier?.lowercased())
        case .postgreSQL, .cachedDatabaseServer:
            #expect(try store.storeUUIDInFile() == nil)  // in the database's _graph_store: the second coordinator reads it below
        }
        if kind.isRemote {
            #expect(second.coordinator !== store.coordinator)
            #expect(second.coordinator.persistentStores.first?.identifier == id.storeIdentifier)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func savedObjectsOutliveTheStoreOnlyWhereItPersists(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let song = try store.context.insert("Song", values: ["title": "So What", "plays": 7])
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue"])
        try song.setObject(album, forKey: "album")
        try store.context.save()
        let identifier = store.storeIdentifier

        let reopened = try store.reopen()
        if kind.persists {
            // Same store UUID, so the IDs saved before are still good.
            #expect(store.storeIdentifier == identifier)
            let again = try reopened.existingObject(with: song.objectID)
            #expect(try again.string("title") == "So What")
            #expect(try again.get("plays") as Int64 == 7)
            #expect(try again.id("album") == album.objectID)
            #expect(try reopened.existingObject(with: album.objectID).ids("songs") == [song.objectID])
            #expect(again.version == 1)
        } else {
            // A new in-memory store: empty, with a UUID of its own.
            #expect(store.storeIdentifier != identifier)
            #expect(try reopened.count("Song") == 0)
            #expect(try reopened.count("Album") == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSaveWritesUpdatesAndDeletesTogether(kind: StoreKind) throws {
        let store = try StoreFixture(kind)
        let keep = try store.context.insert("Song", values: ["title": "Keep", "plays": 1])
        let drop = try store.context.insert("Song", values: ["title": "Drop"])
        try store.context.save()

        try keep.set("plays", Int64(2))
        try store.context.delete(drop)
        let added = try store.context.insert("Song", values: ["title": "Added"])
        try store.context.save()
        #expect(keep.version == 2)
        #expect(added.version == 1)

        let fresh = store.freshContext()
        #expect(try strings("title", of: fresh.all("Song", sortedBy: "title")) == ["Added", "Keep"])
        #expect(try fresh.existingObject(with: keep.objectID).get("plays") as Int64 == 2)
        #expect(try fresh.existingObject(with: keep.objectID).version == 2)
        #expect(throws: GraphError.objectNotFound(drop.objectID)) { try fresh.existingObject(with: drop.objectID) }
    }
}
