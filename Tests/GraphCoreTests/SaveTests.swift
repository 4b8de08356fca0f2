import Foundation
import Testing
@testable import GraphCore

/// Saving a context to its store: permanent IDs, versions, validation, rollback, refresh, reset.
@Suite struct SaveTests {
    private func store(of container: PersistentContainer) throws -> AtomicStore {
        try #require(container.coordinator.persistentStores.first as? AtomicStore)
    }

    // MARK: - Permanent IDs

    @Test func savingGivesInsertedObjectsPermanentIDsOfTheFormGraphStoreEntityNumber() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "So What"])
        #expect(song.objectID.isTemporary)
        #expect(song.objectID.uriRepresentation.hasPrefix("graph:///Song/t"))

        try context.save()

        let storeID = try store(of: container).identifier
        #expect(!song.objectID.isTemporary)
        #expect(song.objectID.storeIdentifier == storeID)
        guard case .int(let number) = song.objectID.referenceObject else {
            Issue.record("expected an integer reference, got \(song.objectID.referenceObject)")
            return
        }
        #expect(number >= 1)
        #expect(song.objectID.uriRepresentation == "graph://\(storeID)/Song/\(number)")
        #expect(context.object(with: song.objectID) === song)
    }

    @Test func permanentIDsAreDistinctAndAreWhatTheStoreHolds() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let songs = try (0..<5).map { try context.insert("Song", values: ["title": .string("S\($0)")]) }
        try context.save()
        let ids = songs.map(\.objectID)
        #expect(Set(ids).count == 5)
        let store = try store(of: container)
        for (index, id) in ids.enumerated() {
            let node = try #require(store.cacheNode(for: id))
            #expect(node.value(forKey: "title") == .string("S\(index)"))
        }
    }

    @Test func relationshipValuesInOtherObjectsFollowThePermanentIDs() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        let composer = try context.insert("Composer", values: ["name": "Miles"])
        try song.setObject(album, forKey: "album")
        try song.add(composer, toKey: "composers")
        try context.save()

        #expect(try album.value(forKey: "songs") == .objects([song.objectID]))
        #expect(try song.value(forKey: "album") == .object(album.objectID))
        #expect(try composer.value(forKey: "songs") == .objects([song.objectID]))
        #expect(try song.value(forKey: "composers") == .objects([composer.objectID]))

        // The store holds permanent IDs too, and another context follows them.
        let store = try store(of: container)
        #expect(store.cacheNode(for: album.objectID)?.value(forKey: "songs") == .objects([song.objectID]))
        #expect(store.cacheNode(for: song.objectID)?.value(forKey: "album") == .object(album.objectID))
        let reader = container.newContext()
        let fetched = try #require(try reader.fetch(FetchRequest(entityName: "Song")).first)
        #expect(try fetched.object(forKey: "album")?.get("title") as String? == "Kind of Blue")
    }

    @Test func aLaterSaveRelatesNewObjectsToSavedOnes() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Blue Train"])
        try context.save()
        let song = try context.insert("Song", values: ["title": "Locomotion"])
        try song.setObject(album, forKey: "album")
        try context.save()
        let store = try store(of: container)
        #expect(store.cacheNode(for: album.objectID)?.value(forKey: "songs") == .objects([song.objectID]))
        #expect(!song.objectID.isTemporary)
    }

    // MARK: - Versions

    @Test func anInsertedObjectHasVersionOneAfterItsFirstSave() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        #expect(song.version == 0)
        try context.save()
        #expect(song.version == 1)
        #expect(try store(of: container).cacheNode(for: song.objectID)?.version == 1)
    }

    @Test func eachSaveThatChangesAnObjectAddsOneToItsVersion() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try song.set("plays", 1)
        try context.save()
        #expect(song.version == 2)
        try song.set("plays", 2)
        try context.save()
        #expect(song.version == 3)
        #expect(try store(of: container).cacheNode(for: song.objectID)?.version == 3)
    }

    @Test func aSaveThatDoesNotChangeAnObjectLeavesItsVersion() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        let other = try context.insert("Song", values: ["title": "Green"])
        try context.save()
        try other.set("plays", 4)
        try context.save()
        #expect(song.version == 1)
        #expect(other.version == 2)
    }

    @Test func objectsChangedOnlyThroughAnInverseGetANewVersion() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Blue Train"])
        let composer = try context.insert("Composer", values: ["name": "Coltrane"])
        try context.save()
        #expect(album.version == 1)

        let song = try context.insert("Song", values: ["title": "Moment's Notice"])
        try song.setObject(album, forKey: "album")  // album.songs changes through the inverse
        try composer.add(song, toKey: "songs")      // composer changes itself
        try context.save()
        #expect(album.version == 2)
        #expect(composer.version == 2)
        #expect(song.version == 1)
        let store = try store(of: container)
        #expect(store.cacheNode(for: album.objectID)?.version == 2)
        #expect(store.cacheNode(for: album.objectID)?.value(forKey: "songs") == .objects([song.objectID]))
        #expect(store.cacheNode(for: song.objectID)?.value(forKey: "composers") == .objects([composer.objectID]))
    }

    @Test func aChangeRevertedToTheCommittedValueLeavesTheVersion() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()

        try song.set("title", "Red")
        try song.set("title", "Blue")
        #expect(context.hasChanges)
        var notified: [ContextDidSave] = []
        context.addDidSaveObserver { notified.append($0) }
        try context.save()
        #expect(song.version == 1)
        #expect(try store(of: container).cacheNode(for: song.objectID)?.version == 1)
        #expect(!context.hasChanges)
        #expect(notified.allSatisfy { !$0.updatedObjectIDs.contains(song.objectID) })
    }

    @Test func movingARelationshipAwayAndBackLeavesTheVersions() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let first = try context.insert("Album", values: ["title": "One"])
        let second = try context.insert("Album", values: ["title": "Two"])
        let song = try context.insert("Song", values: ["title": "Blue"])
        try song.setObject(first, forKey: "album")
        try context.save()

        try song.setObject(second, forKey: "album")
        try song.setObject(first, forKey: "album")
        try context.save()
        #expect(song.version == 1)
        #expect(first.version == 1)
        #expect(second.version == 1)
    }

    // MARK: - Validation

    @Test func nothingChangesWhenValidationFails() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let saved = try context.insert("Song", values: ["title": "Saved"])
        try context.save()
        let store = try store(of: container)
        let nodesBefore = store.cacheNodes()

        try saved.set("plays", 9)
        let invalid = try context.insert("Song")  // title is required and has no default
        let valid = try context.insert("Album", values: ["title": "Fine"])

        #expect {
            try context.save()
        } throws: { error in
            guard case GraphError.validation(let failures) = error else { return false }
            return failures == [ValidationFailure(objectID: invalid.objectID, key: "title", reason: .missingValue)]
        }
        #expect(invalid.objectID.isTemporary)
        #expect(valid.objectID.isTemporary)
        #expect(invalid.isInserted && valid.isInserted)
        #expect(saved.isUpdated)
        #expect(saved.version == 1)
        #expect(context.hasChanges)
        #expect(store.cacheNodes() == nodesBefore)

        // Fixing the problem lets the same changes save.
        try invalid.set("title", "Now valid")
        try context.save()
        #expect(store.cacheNodeCount == 3)
        #expect(saved.version == 2)
    }

    @Test func aDeniedDeleteFailsValidationAndLeavesTheStore() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let artist = try context.insert("Artist", values: ["name": "Miles"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try album.setObject(artist, forKey: "artist")
        try context.save()

        try context.delete(artist)
        #expect {
            try context.save()
        } throws: { error in
            guard case GraphError.validation(let failures) = error, let failure = failures.first else { return false }
            return failures.count == 1 && failure.objectID == artist.objectID && failure.key == "albums"
                && failure.reason == .deleteDenied(blocking: [album.objectID])
        }
        #expect(try store(of: container).cacheNode(for: artist.objectID) != nil)
        #expect(artist.isDeleted)
    }

    // MARK: - Rollback

    @Test func rollbackRestoresValuesDropsInsertsAndRestoresDeletes() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        let kept = try context.insert("Song", values: ["title": "Freddie Freeloader"])
        try song.setObject(album, forKey: "album")
        try kept.setObject(album, forKey: "album")
        try context.save()

        try album.set("title", "Changed")
        try context.delete(song)
        let inserted = try context.insert("Song", values: ["title": "New"])
        try inserted.setObject(album, forKey: "album")
        #expect(try album.value(forKey: "songs") == .objects([kept.objectID, inserted.objectID]))

        context.rollback()

        #expect(!context.hasChanges)
        #expect(try album.get("title") as String == "Kind of Blue")
        #expect(!song.isDeleted)
        #expect(song.context === context)
        #expect(try album.value(forKey: "songs") == .objects([song.objectID, kept.objectID]))
        #expect(try song.value(forKey: "album") == .object(album.objectID))
        #expect(inserted.context == nil)
        #expect(context.registeredObjects.contains(inserted) == false)
        #expect(context.insertedObjects.isEmpty && context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 2)

        // Nothing is left to save.
        try context.save()
        #expect(album.version == 1)
    }

    // MARK: - Refresh and reset

    @Test func refreshWithoutMergingTurnsTheObjectIntoAFaultAndDropsItsChanges() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()

        let writer = container.newContext()
        let other = try writer.existingObject(with: song.objectID)
        try other.set("title", "Written elsewhere")
        try writer.save()

        try song.set("plays", 7)
        try context.refresh(song, mergeChanges: false)
        #expect(song.isFault)
        #expect(!song.hasChanges)
        #expect(!context.hasChanges)
        #expect(try song.get("title") as String == "Written elsewhere")
        #expect(try song.get("plays") as Int == 0)
        #expect(song.version == 2)
    }

    @Test func refreshWithMergingTakesTheStoresValuesAndKeepsUnsavedChanges() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()

        let writer = container.newContext()
        let other = try writer.existingObject(with: song.objectID)
        try other.set("title", "Written elsewhere")
        try writer.save()

        try song.set("plays", 7)
        try context.refresh(song, mergeChanges: true)
        #expect(!song.isFault)
        #expect(song.isUpdated)
        #expect(try song.get("title") as String == "Written elsewhere")
        #expect(try song.get("plays") as Int == 7)
        #expect(song.version == 2)
        #expect(try song.changedKeys() == ["plays"])

        // The merged object saves without a conflict.
        try context.save()
        #expect(song.version == 3)
        let node = try #require(try store(of: container).cacheNode(for: song.objectID))
        #expect(node.value(forKey: "title") == "Written elsewhere")
        #expect(node.value(forKey: "plays") == 7)
    }

    @Test func refreshOfAnUnchangedObjectReadsTheStoreAgain() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        let writer = container.newContext()
        try writer.existingObject(with: song.objectID).set("title", "Green")
        try writer.save()

        #expect(try song.get("title") as String == "Blue")  // still the values it read
        try context.refresh(song, mergeChanges: true)
        #expect(try song.get("title") as String == "Green")
        #expect(song.version == 2)
    }

    @Test func resetForgetsEveryObjectAndEveryChange() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try song.set("title", "Changed")
        let inserted = try context.insert("Song", values: ["title": "New"])

        context.reset()

        #expect(!context.hasChanges)
        #expect(context.registeredObjects.isEmpty)
        #expect(song.context == nil)
        #expect(inserted.context == nil)
        #expect(throws: GraphError.self) { try song.set("title", "Too late") }

        let again = try context.existingObject(with: song.objectID)
        #expect(again !== song)
        #expect(try again.get("title") as String == "Blue")
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 1)
    }

    // MARK: - Deleting

    @Test func savingADeleteRemovesTheObjectFromStoreAndContext() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        try context.save()
        let songID = song.objectID

        try context.delete(album)  // cascades to the song
        try context.save()

        let store = try store(of: container)
        #expect(store.cacheNodeCount == 0)
        #expect(album.context == nil)
        #expect(song.context == nil)
        #expect(throws: GraphError.objectNotFound(songID)) { try context.existingObject(with: songID) }
    }

    @Test func anObjectInsertedAndDeletedBeforeSavingNeverReachesTheStore() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Gone"])
        try context.delete(song)
        var notified: [ContextDidSave] = []
        context.addDidSaveObserver { notified.append($0) }
        try context.save()
        #expect(try store(of: container).cacheNodeCount == 0)
        #expect(song.context == nil)
        #expect(notified.allSatisfy { $0.isEmpty })
    }

    @Test func deletingASavedObjectNullifiesItsInversesInTheStore() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let composer = try context.insert("Composer", values: ["name": "Evans"])
        let song = try context.insert("Song", values: ["title": "Blue in Green"])
        try song.add(composer, toKey: "composers")
        try context.save()

        try context.delete(song)
        try context.save()
        let node = try #require(try store(of: container).cacheNode(for: composer.objectID))
        #expect(node.value(forKey: "songs") == .objects([]))
        #expect(node.version == 2)
    }
}
