import Foundation
import Synchronization
import Testing
@testable import GraphCore

/// Did-save notifications and merging them into other contexts.
@Suite struct MergeTests {
    /// Collects notifications from any thread.
    private final class Recorder: Sendable {
        private let received = Mutex<[ContextDidSave]>([])
        func append(_ notification: ContextDidSave) { received.withLock { $0.append(notification) } }
        var all: [ContextDidSave] { received.withLock { $0 } }
    }

    /// A saved album with two songs, and the IDs.
    private struct Library {
        let container: PersistentContainer
        let album: ObjectID
        let songs: [ObjectID]

        init() throws {
            container = try MusicModel.container()
            let seed = container.newContext()
            let album = try seed.insert("Album", values: ["title": "Kind of Blue"])
            let first = try seed.insert("Song", values: ["title": "So What"])
            let second = try seed.insert("Song", values: ["title": "Blue in Green"])
            try first.setObject(album, forKey: "album")
            try second.setObject(album, forKey: "album")
            try seed.save()
            self.album = album.objectID
            songs = [first.objectID, second.objectID]
        }
    }

    // MARK: - Notifications

    @Test func contextObserversReceiveTheInsertedUpdatedAndDeletedIDs() throws {
        let library = try Library()
        let context = library.container.newContext()
        var received: [ContextDidSave] = []
        context.addDidSaveObserver { received.append($0) }

        let album = try context.existingObject(with: library.album)
        try album.set("title", "Kind of Blue (Legacy)")
        try context.delete(context.existingObject(with: library.songs[1]))
        let song = try context.insert("Song", values: ["title": "Flamenco Sketches"])
        try song.setObject(album, forKey: "album")
        try context.save()

        #expect(received.count == 1)
        let notification = try #require(received.first)
        #expect(notification.insertedObjectIDs == [song.objectID])
        #expect(notification.insertedObjectIDs.allSatisfy { !$0.isTemporary })
        #expect(notification.updatedObjectIDs == [library.album])
        #expect(notification.deletedObjectIDs == [library.songs[1]])
    }

    @Test func objectsChangedThroughAnInverseAreListedAsUpdated() throws {
        let library = try Library()
        let context = library.container.newContext()
        var received: [ContextDidSave] = []
        context.addDidSaveObserver { received.append($0) }
        let composer = try context.insert("Composer", values: ["name": "Davis"])
        try composer.setObjects(try library.songs.map { try context.existingObject(with: $0) }, forKey: "songs")
        try context.save()
        #expect(received == [ContextDidSave(inserted: [composer.objectID], updated: Set(library.songs))])
    }

    @Test func aRemovedContextObserverIsNotCalled() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        var calls = 0
        let token = context.addDidSaveObserver { _ in calls += 1 }
        try context.insert("Song", values: ["title": "One"])
        try context.save()
        context.removeDidSaveObserver(token)
        try context.insert("Song", values: ["title": "Two"])
        try context.save()
        #expect(calls == 1)
    }

    @Test func coordinatorObserversReceiveEverySaveOfEveryContext() throws {
        let library = try Library()
        let recorder = Recorder()
        let token = library.container.coordinator.addSaveObserver { recorder.append($0) }

        let first = library.container.newContext()
        let inserted = try first.insert("Artist", values: ["name": "Miles"])
        try first.save()
        let second = library.container.newContext()
        try second.existingObject(with: library.album).set("title", "Changed")
        try second.save()
        try second.delete(second.existingObject(with: library.songs[0]))
        try second.save()

        #expect(recorder.all == [
            ContextDidSave(inserted: [inserted.objectID]),
            ContextDidSave(updated: [library.album]),
            ContextDidSave(updated: [library.album], deleted: [library.songs[0]]),
        ])

        library.container.coordinator.removeSaveObserver(token)
        try first.insert("Artist", values: ["name": "Bill"])
        try first.save()
        #expect(recorder.all.count == 3)
    }

    @Test func saveWithNothingToWritePostsNoCoordinatorNotification() throws {
        let library = try Library()
        let recorder = Recorder()
        library.container.coordinator.addSaveObserver { recorder.append($0) }
        let context = library.container.newContext()
        let album = try context.existingObject(with: library.album)
        try album.set("title", "Other")
        try album.set("title", "Kind of Blue")
        try context.save()
        try context.save()
        #expect(recorder.all.isEmpty)
    }

    @Test func aChildContextsSaveNotifiesItsObserversButNotTheCoordinator() throws {
        let container = try MusicModel.container()
        let recorder = Recorder()
        container.coordinator.addSaveObserver { recorder.append($0) }
        let parent = container.newContext()
        let child = parent.newChildContext()
        var received: [ContextDidSave] = []
        child.addDidSaveObserver { received.append($0) }
        let song = try child.insert("Song", values: ["title": "Child"])
        try child.save()
        #expect(received == [ContextDidSave(inserted: [song.objectID])])
        #expect(recorder.all.isEmpty)

        try parent.save()
        #expect(recorder.all.count == 1)
        #expect(recorder.all.first?.insertedObjectIDs.count == 1)
    }

    // MARK: - Merging

    @Test func mergingTurnsUpdatedObjectsIntoFaultsThatShowTheNewValues() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        let untouched = try reader.existingObject(with: library.songs[0])
        #expect(try album.get("title") as String == "Kind of Blue")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.existingObject(with: library.album).set("title", "Kind of Blue (Legacy)")
        try writer.save()

        #expect(try album.get("title") as String == "Kind of Blue")  // not merged yet
        reader.mergeChanges(from: notification)
        #expect(album.isFault)
        #expect(!untouched.isFault)
        #expect(try album.get("title") as String == "Kind of Blue (Legacy)")
        #expect(album.version == 2)
        #expect(reader.object(with: library.album) === album)
    }

    @Test func mergingDropsDeletedObjectsAndFollowsTheirNullifiedInverses() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        let song = try reader.existingObject(with: library.songs[0])
        #expect(try album.objects(forKey: "songs").count == 2)

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.delete(writer.existingObject(with: library.songs[0]))
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(song.context == nil)
        #expect(!reader.registeredObjects.contains(song))
        #expect(try album.value(forKey: "songs") == .objects([library.songs[1]]))
        #expect(throws: GraphError.objectNotFound(library.songs[0])) {
            try reader.existingObject(with: library.songs[0])
        }
    }

    @Test func mergingKeepsTheContextsUnsavedChangesOnTop() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        let song = try reader.existingObject(with: library.songs[0])
        try song.set("plays", 10)
        let newSong = try reader.insert("Song", values: ["title": "All Blues"])
        try newSong.setObject(album, forKey: "album")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.existingObject(with: library.album).set("title", "Legacy")
        try writer.existingObject(with: library.songs[0]).set("title", "So What (Take 2)")
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(try song.get("title") as String == "So What (Take 2)")
        #expect(try song.get("plays") as Int == 10)
        #expect(try album.get("title") as String == "Legacy")
        #expect(try album.value(forKey: "songs") == .objects(library.songs + [newSong.objectID]))
        #expect(song.isUpdated && album.isUpdated)
        #expect(song.version == 2 && album.version == 2)

        // The merged context saves without a conflict, and both sides' changes are kept.
        try reader.save()
        let check = library.container.newContext()
        let saved = try check.existingObject(with: library.songs[0])
        #expect(try saved.get("title") as String == "So What (Take 2)")
        #expect(try saved.get("plays") as Int == 10)
        let savedAlbum = try check.existingObject(with: library.album)
        #expect(try savedAlbum.get("title") as String == "Legacy")
        #expect(try savedAlbum.objects(forKey: "songs").count == 3)
    }

    @Test func mergingKeepsAdditionsToAListFromBothSides() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        let ours = try reader.insert("Song", values: ["title": "Flamenco Sketches"])
        try ours.setObject(album, forKey: "album")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        let theirs = try writer.insert("Song", values: ["title": "All Blues"])
        try theirs.setObject(writer.existingObject(with: library.album), forKey: "album")
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(try album.value(forKey: "songs") == .objects(library.songs + [theirs.objectID, ours.objectID]))
        try reader.save()

        let check = library.container.newContext()
        let titles = try check.existingObject(with: library.album).objects(forKey: "songs").map { try $0.get("title") as String }
        #expect(titles == ["So What", "Blue in Green", "All Blues", "Flamenco Sketches"])
        for song in try check.fetch(FetchRequest(entityName: "Song")) {
            #expect(try song.object(forKey: "album")?.objectID == library.album)
        }
    }

    @Test func mergingKeepsALocalMoveAndTakesTheObjectOutOfTheStoresNewPlace() throws {
        let library = try Library()
        let seed = library.container.newContext()
        let elsewhere = try seed.insert("Album", values: ["title": "Elsewhere"])
        let mine = try seed.insert("Album", values: ["title": "Mine"])
        try seed.save()

        let reader = library.container.newContext()
        let song = try reader.existingObject(with: library.songs[0])
        try song.setObject(reader.existingObject(with: mine.objectID), forKey: "album")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.existingObject(with: library.songs[0]).setObject(writer.existingObject(with: elsewhere.objectID), forKey: "album")
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(try song.value(forKey: "album") == .object(mine.objectID))
        try reader.save()

        let check = library.container.newContext()
        #expect(try check.existingObject(with: library.songs[0]).value(forKey: "album") == .object(mine.objectID))
        #expect(try check.existingObject(with: mine.objectID).value(forKey: "songs") == .objects([library.songs[0]]))
        #expect(try check.existingObject(with: elsewhere.objectID).value(forKey: "songs") == .objects([]))
        #expect(try check.existingObject(with: library.album).value(forKey: "songs") == .objects([library.songs[1]]))
    }

    @Test func mergingADeletionTakesTheObjectOutOfUnsavedRelationships() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        let draft = try reader.insert("Song", values: ["title": "Draft"])
        try draft.setObject(album, forKey: "album")
        let composer = try reader.insert("Composer", values: ["name": "Evans"])
        try composer.setObjects([reader.existingObject(with: library.songs[1]), draft], forKey: "songs")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.delete(writer.existingObject(with: library.album))  // cascades to both songs
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(album.context == nil)
        #expect(try draft.value(forKey: "album") == .null)
        #expect(try composer.value(forKey: "songs") == .objects([draft.objectID]))
        try reader.save()

        let check = library.container.newContext()
        let saved = try check.existingObject(with: draft.objectID)
        #expect(try saved.object(forKey: "album") == nil)
        #expect(try check.existingObject(with: composer.objectID).objects(forKey: "songs") == [saved])
    }

    @Test func mergingShowsObjectsAnotherContextInserted() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let album = try reader.existingObject(with: library.album)
        _ = try album.objects(forKey: "songs")

        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        let song = try writer.insert("Song", values: ["title": "All Blues"])
        try song.setObject(writer.existingObject(with: library.album), forKey: "album")
        try writer.save()

        reader.mergeChanges(from: notification)
        let titles = try album.objects(forKey: "songs").map { try $0.get("title") as String }
        #expect(titles == ["So What", "Blue in Green", "All Blues"])
    }

    @Test func mergingIgnoresObjectsTheContextDoesNotHold() throws {
        let library = try Library()
        let reader = library.container.newContext()
        let writer = library.container.newContext()
        var notification = ContextDidSave()
        writer.addDidSaveObserver { notification = $0 }
        try writer.existingObject(with: library.album).set("title", "Legacy")
        try writer.delete(writer.existingObject(with: library.songs[1]))
        try writer.save()

        reader.mergeChanges(from: notification)
        #expect(reader.registeredObjects.isEmpty)
        #expect(!reader.hasChanges)
    }
}
