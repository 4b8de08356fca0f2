import Foundation
import Testing
@testable import GraphCore

/// Child contexts read through their parent and save into it; only the parent's save
/// reaches the store.
@Suite struct ChildContextTests {
    /// A saved album with one song.
    private struct Library {
        let container: PersistentContainer
        let album: ObjectID
        let song: ObjectID

        init() throws {
            container = try MusicModel.container()
            let seed = container.newContext()
            let album = try seed.insert("Album", values: ["title": "Kind of Blue"])
            let song = try seed.insert("Song", values: ["title": "So What"])
            try song.setObject(album, forKey: "album")
            try seed.save()
            self.album = album.objectID
            self.song = song.objectID
        }

        var store: AtomicStore? { container.coordinator.persistentStores.first as? AtomicStore }

        func storedSnapshots() -> [ObjectSnapshot] {
            (store?.cacheNodes() ?? []).sorted { $0.objectID.description < $1.objectID.description }
        }
    }

    @Test func aChildSeesItsParentsUnsavedChanges() throws {
        let library = try Library()
        let parent = library.container.newContext()
        try parent.existingObject(with: library.album).set("title", "Parent's title")
        let inserted = try parent.insert("Song", values: ["title": "Parent's song"])
        try inserted.setObject(parent.existingObject(with: library.album), forKey: "album")

        let child = parent.newChildContext()
        #expect(child.parent === parent)
        let album = try child.existingObject(with: library.album)
        #expect(try album.get("title") as String == "Parent's title")
        let titles = try album.objects(forKey: "songs").map { try $0.get("title") as String }
        #expect(titles == ["So What", "Parent's song"])
        let fetched = try child.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")]))
        #expect(try fetched.map { try $0.get("title") as String } == ["Parent's song", "So What"])
        #expect(try child.existingObject(with: inserted.objectID).get("title") as String == "Parent's song")
    }

    @Test func aChildDoesNotSeeObjectsItsParentDeleted() throws {
        let library = try Library()
        let parent = library.container.newContext()
        try parent.delete(parent.existingObject(with: library.song))
        let child = parent.newChildContext()
        #expect(try child.fetch(FetchRequest(entityName: "Song")).isEmpty)
        #expect(throws: GraphError.objectNotFound(library.song)) { try child.existingObject(with: library.song) }
    }

    @Test func aChildsSaveGoesIntoTheParentAndTheStoreWaitsForTheParentsSave() throws {
        let library = try Library()
        let before = library.storedSnapshots()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        try child.existingObject(with: library.song).set("plays", 12)
        try child.save()

        #expect(!child.hasChanges)
        #expect(parent.hasChanges)
        let song = parent.object(with: library.song)
        #expect(song.isUpdated)
        #expect(try song.get("plays") as Int == 12)
        #expect(library.storedSnapshots() == before)

        try parent.save()
        #expect(!parent.hasChanges)
        #expect(library.store?.cacheNode(for: library.song)?.value(forKey: "plays") == 12)
        #expect(library.store?.cacheNode(for: library.song)?.version == 2)
        #expect(song.version == 2)
    }

    @Test func insertsMadeInAChildAreSavedByTheParentWithTheirRelationships() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        let album = try child.existingObject(with: library.album)
        let song = try child.insert("Song", values: ["title": "Freddie Freeloader"])
        try song.setObject(album, forKey: "album")
        let composer = try child.insert("Composer", values: ["name": "Miles Davis"])
        try composer.add(song, toKey: "songs")
        try child.save()

        #expect(parent.insertedObjects.count == 2)
        let inParent = parent.object(with: song.objectID)
        #expect(inParent.isInserted)
        #expect(try inParent.value(forKey: "album") == .object(library.album))
        #expect(try parent.existingObject(with: library.album).value(forKey: "songs")
            == .objects([library.song, song.objectID]))

        try parent.save()
        let savedID = inParent.objectID
        #expect(!savedID.isTemporary)
        let reader = library.container.newContext()
        let saved = try reader.existingObject(with: savedID)
        #expect(try saved.get("title") as String == "Freddie Freeloader")
        #expect(try saved.object(forKey: "album")?.objectID == library.album)
        #expect(try saved.objects(forKey: "composers").map { try $0.get("name") as String } == ["Miles Davis"])
        #expect(try reader.existingObject(with: library.album).value(forKey: "songs")
            == .objects([library.song, savedID]))
    }

    @Test func deletesMadeInAChildCascadeAndAreSavedByTheParent() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        try child.delete(child.existingObject(with: library.album))  // cascades to the song
        try child.save()

        #expect(Set(parent.deletedObjects.map(\.objectID)) == [library.album, library.song])
        #expect(library.store?.cacheNodeCount == 2)
        #expect(try parent.fetch(FetchRequest(entityName: "Song")).isEmpty)

        try parent.save()
        #expect(library.store?.cacheNodeCount == 0)
    }

    @Test func aDeleteInAChildNullifiesInversesInTheParent() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        try child.delete(child.existingObject(with: library.song))
        try child.save()
        #expect(try parent.existingObject(with: library.album).value(forKey: "songs") == .objects([]))
        try parent.save()
        #expect(library.store?.cacheNode(for: library.album)?.value(forKey: "songs") == .objects([]))
        #expect(library.store?.cacheNode(for: library.song) == nil)
    }

    @Test func aChildCanDeleteAnObjectItsParentInserted() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let inserted = try parent.insert("Song", values: ["title": "Draft"])
        let child = parent.newChildContext()
        try child.delete(child.existingObject(with: inserted.objectID))
        try child.save()
        #expect(parent.insertedObjects.isEmpty)
        try parent.save()
        #expect(library.store?.cacheNodeCount == 2)
    }

    @Test func rollingBackAChildLeavesTheParentAlone() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let parentSong = try parent.existingObject(with: library.song)
        try parentSong.set("plays", 3)

        let child = parent.newChildContext()
        let song = try child.existingObject(with: library.song)
        try song.set("title", "Child's title")
        try child.insert("Song", values: ["title": "Child's song"])
        try child.delete(child.existingObject(with: library.album))
        child.rollback()

        #expect(!child.hasChanges)
        #expect(try song.get("title") as String == "So What")
        #expect(try song.get("plays") as Int == 3)
        #expect(parent.updatedObjects == [parentSong])
        #expect(parent.insertedObjects.isEmpty && parent.deletedObjects.isEmpty)
        #expect(try parentSong.get("title") as String == "So What")
        #expect(try parentSong.get("plays") as Int == 3)
    }

    @Test func aChildsSaveKeepsWhatTheParentChangedInOtherProperties() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let parentSong = try parent.existingObject(with: library.song)
        let child = parent.newChildContext()
        let song = try child.existingObject(with: library.song)

        try parentSong.set("plays", 5)         // after the child read the song
        try song.set("title", "So What (Live)")
        try child.save()

        #expect(try parentSong.get("title") as String == "So What (Live)")
        #expect(try parentSong.get("plays") as Int == 5)
    }

    @Test func aChildsSaveAddsToAListTheParentChangedToo() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let parentAlbum = try parent.existingObject(with: library.album)
        let child = parent.newChildContext()
        let childAlbum = try child.existingObject(with: library.album)

        let fromParent = try parent.insert("Song", values: ["title": "Parent's song"])
        try fromParent.setObject(parentAlbum, forKey: "album")
        let fromChild = try child.insert("Song", values: ["title": "Child's song"])
        try fromChild.setObject(childAlbum, forKey: "album")
        try child.save()

        #expect(try parentAlbum.value(forKey: "songs")
            == .objects([library.song, fromParent.objectID, fromChild.objectID]))
        try parent.save()
        let reader = library.container.newContext()
        let titles = try reader.existingObject(with: library.album).objects(forKey: "songs").map { try $0.get("title") as String }
        #expect(titles == ["So What", "Parent's song", "Child's song"])
    }

    @Test func aChildKeepsEditingAnObjectItInsertedAfterTheParentSavedIt() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        let song = try child.insert("Song", values: ["title": "Draft"])
        try child.save()
        try parent.save()
        #expect(library.store?.cacheNodeCount == 3)

        try song.set("title", "Final")
        try child.save()
        try parent.save()
        let reader = library.container.newContext()
        let titles = try reader.fetch(FetchRequest(entityName: "Song")).map { try $0.get("title") as String }
        #expect(titles.sorted() == ["Final", "So What"])
    }

    @Test func aGrandchildSavesThroughEachLevel() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        let grandchild = child.newChildContext()
        try grandchild.existingObject(with: library.song).set("plays", 99)
        try grandchild.save()
        #expect(child.hasChanges && !parent.hasChanges)
        try child.save()
        #expect(parent.hasChanges)
        try parent.save()
        #expect(library.store?.cacheNode(for: library.song)?.value(forKey: "plays") == 99)
    }

    @Test func aChildsSaveIsValidatedFirst() throws {
        let library = try Library()
        let parent = library.container.newContext()
        let child = parent.newChildContext()
        try child.insert("Song")  // no title
        #expect(throws: GraphError.self) { try child.save() }
        #expect(!parent.hasChanges)
        #expect(child.hasChanges)
    }
}
