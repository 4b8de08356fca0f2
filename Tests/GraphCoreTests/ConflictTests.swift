import Foundation
import Testing
@testable import GraphCore

/// Optimistic locking: a save fails when its objects changed in the store since they were
/// read, unless a merge policy merges them property by property.
@Suite struct ConflictTests {
    /// A saved song, and two contexts that have both read it.
    private struct Setup {
        let container: PersistentContainer
        let first: ObjectContext
        let second: ObjectContext
        let id: ObjectID

        init() throws {
            container = try MusicModel.container()
            let seed = container.newContext()
            let song = try seed.insert("Song", values: ["title": "Blue", "plays": 1])
            try seed.save()
            id = song.objectID
            first = container.newContext()
            second = container.newContext()
            _ = try first.existingObject(with: id)
            _ = try second.existingObject(with: id)
        }

        var node: ObjectSnapshot? {
            (container.coordinator.persistentStores.first as? AtomicStore)?.cacheNode(for: id)
        }
    }

    private func conflicts(of error: GraphError) -> [Conflict]? {
        guard case .conflict(let conflicts) = error else { return nil }
        return conflicts
    }

    @Test func theFirstSaveWinsAndTheSecondThrowsAConflictWithBothVersions() throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "First")
        try setup.second.object(with: setup.id).set("title", "Second")

        try setup.first.save()
        let error = #expect(throws: GraphError.self) { try setup.second.save() }
        #expect(error.flatMap(conflicts(of:)) == [Conflict(objectID: setup.id, expectedVersion: 1, currentVersion: 2)])
        #expect(error?.description.contains("version 1") == true)
        #expect(error?.description.contains("version 2") == true)

        // The store keeps the winner; the loser keeps its unsaved change.
        #expect(setup.node?.value(forKey: "title") == "First")
        #expect(setup.node?.version == 2)
        let loser = setup.second.object(with: setup.id)
        #expect(loser.isUpdated)
        #expect(try loser.get("title") as String == "Second")
        #expect(loser.version == 1)
    }

    @Test func aConflictListsEveryObjectThatChangedAndNoOther() throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let a = try seed.insert("Song", values: ["title": "A"])
        let b = try seed.insert("Song", values: ["title": "B"])
        let c = try seed.insert("Song", values: ["title": "C"])
        try seed.save()

        let first = container.newContext()
        let second = container.newContext()
        for id in [a.objectID, b.objectID, c.objectID] {
            try second.existingObject(with: id).set("plays", 5)
        }
        try first.existingObject(with: a.objectID).set("plays", 1)
        try first.existingObject(with: c.objectID).set("plays", 1)
        try first.save()

        let error = #expect(throws: GraphError.self) { try second.save() }
        let found = error.flatMap(conflicts(of:)) ?? []
        #expect(Set(found.map(\.objectID)) == [a.objectID, c.objectID])
        #expect(found.allSatisfy { $0.expectedVersion == 1 && $0.currentVersion == 2 })
        // All or nothing: b was not written either.
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        #expect(store.cacheNode(for: b.objectID)?.version == 1)
        #expect(store.cacheNode(for: b.objectID)?.value(forKey: "plays") == 0)
    }

    @Test func anObjectDeletedInTheStoreConflictsWithNoCurrentVersion() throws {
        let setup = try Setup()
        try setup.first.delete(setup.first.object(with: setup.id))
        try setup.first.save()

        try setup.second.object(with: setup.id).set("title", "Too late")
        let error = #expect(throws: GraphError.self) { try setup.second.save() }
        #expect(error.flatMap(conflicts(of:)) == [Conflict(objectID: setup.id, expectedVersion: 1, currentVersion: nil)])
        #expect(error?.description.contains("deleted") == true)
    }

    @Test func deletingAnObjectChangedInTheStoreConflicts() throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "First")
        try setup.first.save()
        try setup.second.delete(setup.second.object(with: setup.id))
        let error = #expect(throws: GraphError.self) { try setup.second.save() }
        #expect(error.flatMap(conflicts(of:)) == [Conflict(objectID: setup.id, expectedVersion: 1, currentVersion: 2)])
        #expect(setup.node != nil)
    }

    @Test func insertsOfAFailedSaveAreSavedByTheNextOne() throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "First")
        try setup.first.save()

        let song = setup.second.object(with: setup.id)
        try song.set("plays", 9)
        let inserted = try setup.second.insert("Song", values: ["title": "New"])
        #expect(throws: GraphError.self) { try setup.second.save() }
        #expect(inserted.isInserted)
        #expect(try setup.container.newContext().count(for: FetchRequest(entityName: "Song")) == 1)

        try setup.second.refresh(song, mergeChanges: true)
        try setup.second.save()
        #expect(inserted.version == 1)
        #expect(!inserted.objectID.isTemporary)
        #expect(song.version == 3)
        #expect(try setup.container.newContext().count(for: FetchRequest(entityName: "Song")) == 2)
        #expect(setup.node?.value(forKey: "title") == "First")
        #expect(setup.node?.value(forKey: "plays") == 9)
    }

    // MARK: - Merge policies

    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps])
    func aMergePolicyKeepsTheStoresChangeToOnePropertyAndOursToAnother(policy: MergePolicy) throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "Store's title")
        try setup.first.save()

        setup.second.mergePolicy = policy
        let song = setup.second.object(with: setup.id)
        try song.set("plays", 42)
        try setup.second.save()

        #expect(try song.get("title") as String == "Store's title")
        #expect(try song.get("plays") as Int == 42)
        #expect(song.version == 3)
        #expect(!setup.second.hasChanges)
        #expect(setup.node?.version == 3)
        #expect(setup.node?.value(forKey: "title") == "Store's title")
        #expect(setup.node?.value(forKey: "plays") == 42)
    }

    @Test(arguments: [(MergePolicy.storeTrumps, "Store's title"), (.objectTrumps, "Our title")])
    func onTheSamePropertyThePolicyDecides(policy: MergePolicy, expectedTitle: String) throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "Store's title")
        try setup.first.save()

        setup.second.mergePolicy = policy
        let song = setup.second.object(with: setup.id)
        try song.set("title", "Our title")
        try song.set("plays", 7)
        try setup.second.save()

        #expect(try song.get("title") as String == expectedTitle)
        #expect(try song.get("plays") as Int == 7)
        #expect(song.version == 3)
        #expect(setup.node?.version == 3)
        #expect(setup.node?.value(forKey: "title") == .string(expectedTitle))
        #expect(setup.node?.value(forKey: "plays") == 7)
    }

    @Test func storeTrumpsOnTheOnlyChangedPropertyLeavesNothingToWrite() throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "Store's title")
        try setup.first.save()

        setup.second.mergePolicy = .storeTrumps
        let song = setup.second.object(with: setup.id)
        try song.set("title", "Our title")
        try setup.second.save()

        #expect(try song.get("title") as String == "Store's title")
        #expect(song.version == 2)
        #expect(setup.node?.version == 2)
        #expect(!setup.second.hasChanges)
        // The object is in step with the store: the next change saves without a conflict.
        try song.set("plays", 3)
        setup.second.mergePolicy = .error
        try setup.second.save()
        #expect(song.version == 3)
    }

    @Test func aMergePolicyCannotSaveChangesToAnObjectDeletedInTheStore() throws {
        let setup = try Setup()
        try setup.first.delete(setup.first.object(with: setup.id))
        try setup.first.save()

        setup.second.mergePolicy = .objectTrumps
        try setup.second.object(with: setup.id).set("title", "Too late")
        let error = #expect(throws: GraphError.self) { try setup.second.save() }
        #expect(error.flatMap(conflicts(of:)) == [Conflict(objectID: setup.id, expectedVersion: 1, currentVersion: nil)])
        #expect(setup.node == nil)
    }

    @Test func aMergePolicyLetsADeleteWinOverAnUpdateInTheStore() throws {
        let setup = try Setup()
        try setup.first.object(with: setup.id).set("title", "First")
        try setup.first.save()

        setup.second.mergePolicy = .storeTrumps
        try setup.second.delete(setup.second.object(with: setup.id))
        try setup.second.save()
        #expect(setup.node == nil)
    }

    /// Every song's album lists it, and every album's songs point back at it, in the store.
    private func expectConsistentAlbums(in container: PersistentContainer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reader = container.newContext()
        for song in try reader.fetch(FetchRequest(entityName: "Song")) {
            if let album = try song.object(forKey: "album") {
                #expect(try album.objects(forKey: "songs").contains(song), "\(album) does not list \(song)",
                        sourceLocation: sourceLocation)
            }
        }
        for album in try reader.fetch(FetchRequest(entityName: "Album")) {
            for song in try album.objects(forKey: "songs") {
                #expect(try song.object(forKey: "album") === album, "\(song) does not point back at \(album)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps])
    func additionsToOneListFromBothSidesAreAllKept(policy: MergePolicy) throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let album = try seed.insert("Album", values: ["title": "Kind of Blue"])
        let first = try seed.insert("Song", values: ["title": "So What"])
        try first.setObject(album, forKey: "album")
        try seed.save()

        let writer = container.newContext()
        let loser = container.newContext()
        let albumInLoser = try loser.existingObject(with: album.objectID)

        let stored = try writer.insert("Song", values: ["title": "Freddie Freeloader"])
        try stored.setObject(writer.existingObject(with: album.objectID), forKey: "album")
        try writer.save()

        loser.mergePolicy = policy
        let ours = try loser.insert("Song", values: ["title": "Blue in Green"])
        try ours.setObject(albumInLoser, forKey: "album")
        try loser.save()

        #expect(try albumInLoser.value(forKey: "songs") == .objects([first.objectID, stored.objectID, ours.objectID]))
        #expect(albumInLoser.version == 3)
        let reader = container.newContext()
        let titles = try reader.existingObject(with: album.objectID).objects(forKey: "songs").map { try $0.get("title") as String }
        #expect(titles == ["So What", "Freddie Freeloader", "Blue in Green"])
        try expectConsistentAlbums(in: container)
    }

    @Test(arguments: [MergePolicy.storeTrumps, .objectTrumps])
    func movingOneObjectToTwoPlacesLeavesBothSidesConsistent(policy: MergePolicy) throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let home = try seed.insert("Album", values: ["title": "Home"])
        let theirs = try seed.insert("Album", values: ["title": "Theirs"])
        let ours = try seed.insert("Album", values: ["title": "Ours"])
        let song = try seed.insert("Song", values: ["title": "Wandering"])
        try song.setObject(home, forKey: "album")
        try seed.save()

        let writer = container.newContext()
        let loser = container.newContext()
        let songInLoser = try loser.existingObject(with: song.objectID)
        let oursInLoser = try loser.existingObject(with: ours.objectID)
        _ = try loser.existingObject(with: theirs.objectID)

        try writer.existingObject(with: song.objectID).setObject(writer.existingObject(with: theirs.objectID), forKey: "album")
        try writer.save()

        loser.mergePolicy = policy
        try songInLoser.setObject(oursInLoser, forKey: "album")
        try loser.save()

        let winner = policy == .storeTrumps ? theirs.objectID : ours.objectID
        let reader = container.newContext()
        #expect(try reader.existingObject(with: song.objectID).object(forKey: "album")?.objectID == winner)
        for album in [home, theirs, ours] {
            let songs = try reader.existingObject(with: album.objectID).value(forKey: "songs")
            #expect(songs == .objects(album.objectID == winner ? [song.objectID] : []), "\(album.objectID)")
        }
        #expect(try songInLoser.value(forKey: "album") == .object(winner))
        try expectConsistentAlbums(in: container)
    }

    @Test func anObjectChangedOnlyThroughAnInverseConflictsAndMerges() throws {
        let container = try MusicModel.container()
        let seed = container.newContext()
        let album = try seed.insert("Album", values: ["title": "Blue Train"])
        try seed.save()

        let first = container.newContext()
        let second = container.newContext()
        let albumInSecond = try second.existingObject(with: album.objectID)
        try first.existingObject(with: album.objectID).set("title", "Blue Train (Remastered)")
        try first.save()

        let song = try second.insert("Song", values: ["title": "Locomotion"])
        try song.setObject(albumInSecond, forKey: "album")
        let error = #expect(throws: GraphError.self) { try second.save() }
        #expect(error.flatMap(conflicts(of:)) == [Conflict(objectID: album.objectID, expectedVersion: 1, currentVersion: 2)])

        second.mergePolicy = .storeTrumps
        try second.save()
        #expect(try albumInSecond.get("title") as String == "Blue Train (Remastered)")
        #expect(try albumInSecond.value(forKey: "songs") == .objects([song.objectID]))
        #expect(albumInSecond.version == 3)
        let reader = container.newContext()
        let fetched = try reader.existingObject(with: album.objectID)
        #expect(try fetched.objects(forKey: "songs").map { try $0.get("title") as String } == ["Locomotion"])
    }
}
