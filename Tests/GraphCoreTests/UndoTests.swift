import Foundation
import Testing
@testable import GraphCore

/// Undo and redo of a context's unsaved changes.
@Suite struct UndoTests {
    private func undoingContext() throws -> (PersistentContainer, ObjectContext) {
        let container = try MusicModel.container()
        let context = container.newContext()
        context.isUndoEnabled = true
        return (container, context)
    }

    @Test func undoIsOffByDefaultAndThenThrowsNothingToUndo() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        #expect(!context.isUndoEnabled)
        try context.insert("Song", values: ["title": "Blue"])
        #expect(!context.canUndo)
        #expect(throws: GraphError.nothingToUndo) { try context.undo() }
        #expect(throws: GraphError.nothingToUndo) { try context.redo() }
        #expect(context.insertedObjects.count == 1)
    }

    @Test func undoWithAnEmptyStackThrowsNothingToUndo() throws {
        let (_, context) = try undoingContext()
        #expect(context.isUndoEnabled)
        #expect(!context.canUndo && !context.canRedo)
        #expect(throws: GraphError.nothingToUndo) { try context.undo() }
        #expect(throws: GraphError.nothingToUndo) { try context.redo() }
    }

    @Test func undoAndRedoAValueSet() throws {
        let (_, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()

        try song.set("title", "Green")
        try song.set("title", "Red")
        try context.undo()
        #expect(try song.get("title") as String == "Green")
        #expect(context.canRedo)
        try context.undo()
        #expect(try song.get("title") as String == "Blue")
        #expect(!context.canUndo)
        try context.redo()
        #expect(try song.get("title") as String == "Green")
        try context.redo()
        #expect(try song.get("title") as String == "Red")
        #expect(!context.canRedo)
        #expect(throws: GraphError.nothingToUndo) { try context.redo() }
    }

    @Test func undoingEveryChangeLeavesNothingToSave() throws {
        let (container, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try song.set("plays", 3)
        try context.undo()
        try context.save()
        #expect(song.version == 1)
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        #expect(store.cacheNode(for: song.objectID)?.value(forKey: "plays") == 0)
    }

    @Test func undoAndRedoAnInsert() throws {
        let (container, context) = try undoingContext()
        let song = try context.insert("Song")
        #expect(context.canUndo)
        try context.undo()
        #expect(context.insertedObjects.isEmpty)
        #expect(try context.fetch(FetchRequest(entityName: "Song")).isEmpty)
        try context.redo()
        #expect(context.insertedObjects == [song])
        #expect(try context.fetch(FetchRequest(entityName: "Song")) == [song])

        try context.undo()
        try context.save()
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        #expect(store.cacheNodeCount == 0)
    }

    @Test func undoADeleteWithItsCascadeAndNullifiedInversesInOneStep() throws {
        let (_, context) = try undoingContext()
        let artist = try context.insert("Artist", values: ["name": "Miles"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        let composer = try context.insert("Composer", values: ["name": "Davis"])
        try album.setObject(artist, forKey: "artist")
        try song.setObject(album, forKey: "album")
        try composer.add(song, toKey: "songs")
        try context.save()

        try context.delete(album)  // cascades to the song; nullifies artist.albums and composer.songs
        #expect(album.isDeleted && song.isDeleted)
        #expect(try artist.value(forKey: "albums") == .objects([]))
        #expect(try composer.value(forKey: "songs") == .objects([]))

        // The delete, its cascade and the nullified inverses are one undo step.
        try context.undo()
        #expect(!context.canUndo)
        #expect(!album.isDeleted && !song.isDeleted)
        #expect(try artist.value(forKey: "albums") == .objects([album.objectID]))
        #expect(try composer.value(forKey: "songs") == .objects([song.objectID]))
        #expect(try album.value(forKey: "songs") == .objects([song.objectID]))
        #expect(context.deletedObjects.isEmpty)
        try context.save()
        #expect(album.version == 1 && artist.version == 1 && composer.version == 1)
    }

    @Test func undoingADeleteGroupRestoresEverythingItTouchedAndRedoDeletesAgain() throws {
        let (container, context) = try undoingContext()
        let artist = try context.insert("Artist", values: ["name": "Miles"])
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try album.setObject(artist, forKey: "artist")
        try song.setObject(album, forKey: "album")
        try context.save()

        try context.undoGroup { try context.delete(album) }
        try context.undo()
        #expect(!context.canUndo)
        #expect(!album.isDeleted && !song.isDeleted)
        #expect(try artist.value(forKey: "albums") == .objects([album.objectID]))
        #expect(try song.value(forKey: "album") == .object(album.objectID))

        try context.redo()
        #expect(album.isDeleted && song.isDeleted)
        #expect(try artist.value(forKey: "albums") == .objects([]))
        try context.save()
        let store = try #require(container.coordinator.persistentStores.first as? AtomicStore)
        #expect(store.cacheNodeCount == 1)
        #expect(store.cacheNode(for: artist.objectID)?.value(forKey: "albums") == .objects([]))
    }

    @Test func undoARelationshipSetTogetherWithItsInverse() throws {
        let (_, context) = try undoingContext()
        let first = try context.insert("Album", values: ["title": "One"])
        let second = try context.insert("Album", values: ["title": "Two"])
        let song = try context.insert("Song", values: ["title": "Blue"])
        try song.setObject(first, forKey: "album")
        try context.save()

        try song.setObject(second, forKey: "album")
        // Both sides of the relationship change are one undo step.
        try context.undo()
        #expect(!context.canUndo)
        #expect(try song.value(forKey: "album") == .object(first.objectID))
        #expect(try first.value(forKey: "songs") == .objects([song.objectID]))
        #expect(try second.value(forKey: "songs") == .objects([]))
    }

    @Test func undoGroupGathersSeveralChangesIntoOneStep() throws {
        let (_, context) = try undoingContext()
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        try context.save()

        let songs = try context.undoGroup {
            try album.set("title", "Kind of Blue (Legacy)")
            let a = try context.insert("Song", values: ["title": "So What"])
            let b = try context.insert("Song", values: ["title": "All Blues"])
            try a.setObject(album, forKey: "album")
            try b.setObject(album, forKey: "album")
            return [a, b]
        }
        #expect(try album.objects(forKey: "songs") == songs)

        try context.undo()
        #expect(!context.canUndo)
        #expect(try album.get("title") as String == "Kind of Blue")
        #expect(try album.value(forKey: "songs") == .objects([]))
        #expect(context.insertedObjects.isEmpty)

        try context.redo()
        #expect(try album.get("title") as String == "Kind of Blue (Legacy)")
        #expect(try album.value(forKey: "songs") == .objects(songs.map(\.objectID)))
        #expect(context.insertedObjects == songs)
    }

    @Test func nestedUndoGroupsMakeOneStep() throws {
        let (_, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try context.undoGroup {
            try song.set("plays", 1)
            try context.undoGroup { try song.set("plays", 2) }
            try song.set("title", "Green")
        }
        try context.undo()
        #expect(try song.get("plays") as Int == 0)
        #expect(try song.get("title") as String == "Blue")
        #expect(!context.canUndo)
    }

    @Test func aNewChangeAfterUndoClearsRedo() throws {
        let (_, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try song.set("plays", 1)
        try context.undo()
        #expect(context.canRedo)
        try song.set("plays", 2)
        #expect(!context.canRedo)
        #expect(throws: GraphError.nothingToUndo) { try context.redo() }
    }

    @Test func savingEmptiesTheUndoStack() throws {
        let (_, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try song.set("plays", 2)
        #expect(context.canUndo)
        try context.save()
        #expect(!context.canUndo && !context.canRedo)
        #expect(throws: GraphError.nothingToUndo) { try context.undo() }

        try song.set("plays", 3)
        try context.undo()
        #expect(context.canRedo)
        try context.save()
        #expect(!context.canRedo)
    }

    @Test func rollbackEmptiesTheUndoStack() throws {
        let (_, context) = try undoingContext()
        let song = try context.insert("Song", values: ["title": "Blue"])
        try context.save()
        try song.set("plays", 2)
        context.rollback()
        #expect(!context.canUndo)
        #expect(throws: GraphError.nothingToUndo) { try context.undo() }
    }

    @Test func turningUndoOffForgetsTheStack() throws {
        let (_, context) = try undoingContext()
        try context.insert("Song", values: ["title": "Blue"])
        context.isUndoEnabled = false
        context.isUndoEnabled = true
        #expect(!context.canUndo)
    }
}
