import Foundation
import Testing
@testable import GraphCore

/// Inverse relationships follow at once, whichever side is set, and the context's change
/// lists say which objects changed.
@Suite struct RelationshipTests {
    /// Person.passport (to-one) ↔ Passport.holder (to-one).
    static func passportModel() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("passport", destination: "Passport", inverse: "holder"),
            ]),
            EntityDescription("Passport", attributes: [AttributeDescription("number", .string)], relationships: [
                RelationshipDescription("holder", destination: "Person", inverse: "passport"),
            ]),
        ])
    }

    private func titles(_ objects: [ManagedObject]) throws -> [String] {
        try objects.map { try $0.get("title") }
    }

    // MARK: - To-one ↔ to-many

    @Test func settingASongsAlbumAddsTheSongToTheAlbum() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        #expect(try album.objects(forKey: "songs") == [song])
        #expect(try song.object(forKey: "album") === album)
        #expect(try album["songs"] == .objects([song.objectID]))
        #expect(try song["album"] == .object(album.objectID))
    }

    @Test func settingAnAlbumsSongsSetsEachSongsAlbum() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let a = try context.insert("Song", values: ["title": "So What"])
        let b = try context.insert("Song", values: ["title": "Freddie Freeloader"])
        try album.setObjects([a, b], forKey: "songs")
        #expect(try a.object(forKey: "album") === album)
        #expect(try b.object(forKey: "album") === album)
        // Replacing the list releases the songs left out.
        try album.setObjects([b], forKey: "songs")
        #expect(try a.object(forKey: "album") == nil)
        #expect(try b.object(forKey: "album") === album)
        #expect(try album.objects(forKey: "songs") == [b])
    }

    @Test func movingASongToAnotherAlbumRemovesItFromTheFirst() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let first = try context.insert("Album", values: ["title": "First"])
        let second = try context.insert("Album", values: ["title": "Second"])
        let song = try context.insert("Song", values: ["title": "So What"])
        let other = try context.insert("Song", values: ["title": "Other"])
        try first.setObjects([song, other], forKey: "songs")

        try song.setObject(second, forKey: "album")
        #expect(try first.objects(forKey: "songs") == [other])
        #expect(try second.objects(forKey: "songs") == [song])

        // And back, from the to-many side this time.
        try first.add(song, toKey: "songs", at: 0)
        #expect(try first.objects(forKey: "songs") == [song, other])
        #expect(try second.objects(forKey: "songs").isEmpty)
        #expect(try song.object(forKey: "album") === first)
    }

    @Test func movingASongBetweenSavedAlbumsMarksAllThreeUpdated() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let first = try context.insert("Album", values: ["title": "First"])
        let second = try context.insert("Album", values: ["title": "Second"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(first, forKey: "album")
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.updatedObjects.isEmpty)

        try song.setObject(second, forKey: "album")
        #expect(context.hasChanges)
        #expect(song.isUpdated && first.isUpdated && second.isUpdated)
        #expect(Set(context.updatedObjects) == [song, first, second])
        #expect(context.insertedObjects.isEmpty)
        #expect(context.deletedObjects.isEmpty)
        #expect(try first.changedKeys() == ["songs"])
        #expect(try song.changedKeys() == ["album"])

        try context.save()
        let reader = container.newContext()
        let songs = try reader.fetch(FetchRequest(entityName: "Song"))
        let readAlbum = try #require(try songs.first?.object(forKey: "album"))
        #expect(try readAlbum["title"] == "Second")
        let firstAgain = try reader.existingObject(with: first.objectID)
        #expect(try firstAgain.objects(forKey: "songs").isEmpty)
    }

    @Test func settingASongsAlbumToNilRemovesItFromTheAlbum() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let a = try context.insert("Song", values: ["title": "a"])
        let b = try context.insert("Song", values: ["title": "b"])
        try album.setObjects([a, b], forKey: "songs")
        try a.setObject(nil, forKey: "album")
        #expect(try album.objects(forKey: "songs") == [b])
        try b.setValue(nil, forKey: "album")
        #expect(try album.objects(forKey: "songs").isEmpty)
        #expect(try b.object(forKey: "album") == nil)
    }

    @Test func removingASongFromAnAlbumClearsTheSongsAlbum() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "a"])
        try album.add(song, toKey: "songs")
        try album.remove(song, fromKey: "songs")
        #expect(try album.objects(forKey: "songs").isEmpty)
        #expect(try song.object(forKey: "album") == nil)
        // Removing an object that is not there changes nothing.
        try album.remove(song, fromKey: "songs")
        #expect(try album.objects(forKey: "songs").isEmpty)
    }

    @Test func aRelationshipRefusesObjectsOfAnotherEntity() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song")
        let artist = try context.insert("Artist")
        #expect(throws: GraphError.wrongDestination(entity: "Song", key: "album", expected: "Album", got: "Artist")) {
            try song.setObject(artist, forKey: "album")
        }
        #expect(throws: GraphError.wrongDestination(entity: "Song", key: "composers", expected: "Composer", got: "Artist")) {
            try song.add(artist, toKey: "composers")
        }
        #expect(try song.object(forKey: "album") == nil)
        #expect(try artist.objects(forKey: "albums").isEmpty)
    }

    @Test func aRelationshipRefusesADeletedObject() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "x"])
        let album = try context.insert("Album", values: ["title": "y"])
        try context.save()
        try context.delete(album)
        #expect(throws: GraphError.objectInaccessible(album.objectID, reason: "it was deleted")) {
            try song.setObject(album, forKey: "album")
        }
    }

    @Test func relationshipsCanBeSetByObjectIDValues() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let a = try context.insert("Song", values: ["title": "a"])
        let b = try context.insert("Song", values: ["title": "b"])
        try album.setValue(.objects([b.objectID, a.objectID]), forKey: "songs")
        #expect(try album.objects(forKey: "songs") == [b, a])
        #expect(try a.object(forKey: "album") === album)
        try album.setValue(nil, forKey: "songs")
        #expect(try album.objects(forKey: "songs").isEmpty)
        #expect(try a.object(forKey: "album") == nil)
    }

    // MARK: - Ordered to-many

    @Test func anOrderedRelationshipKeepsTheOrderOfAdding() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let songs = try ["So What", "Freddie Freeloader", "Blue in Green"].map {
            try context.insert("Song", values: ["title": .string($0)])
        }
        for song in songs { try song.setObject(album, forKey: "album") }
        #expect(try titles(album.objects(forKey: "songs")) == ["So What", "Freddie Freeloader", "Blue in Green"])
    }

    @Test func addingAtAnIndexInsertsThere() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let a = try context.insert("Song", values: ["title": "a"])
        let b = try context.insert("Song", values: ["title": "b"])
        let c = try context.insert("Song", values: ["title": "c"])
        let d = try context.insert("Song", values: ["title": "d"])
        try album.add(a, toKey: "songs")
        try album.add(b, toKey: "songs", at: 0)
        try album.add(c, toKey: "songs", at: 1)
        try album.add(d, toKey: "songs", at: 99)  // past the end: appended
        #expect(try titles(album.objects(forKey: "songs")) == ["b", "c", "a", "d"])
        #expect(try d.object(forKey: "album") === album)
    }

    @Test func addingASongAlreadyInTheAlbumAtAnIndexMovesIt() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let songs = try ["a", "b", "c"].map { try context.insert("Song", values: ["title": .string($0)]) }
        try album.setObjects(songs, forKey: "songs")
        try album.add(songs[2], toKey: "songs", at: 0)
        #expect(try titles(album.objects(forKey: "songs")) == ["c", "a", "b"])
        try album.add(songs[2], toKey: "songs", at: 5)
        #expect(try titles(album.objects(forKey: "songs")) == ["a", "b", "c"])
        try album.add(songs[0], toKey: "songs")  // already there, no index: stays
        #expect(try titles(album.objects(forKey: "songs")) == ["a", "b", "c"])
    }

    @Test func aNegativeIndexAddsAtTheFrontInsteadOfCrashing() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let songs = try ["a", "b", "c"].map { try context.insert("Song", values: ["title": .string($0)]) }
        try album.setObjects(Array(songs[0...1]), forKey: "songs")
        try album.add(songs[2], toKey: "songs", at: -1)  // new to the album
        #expect(try titles(album.objects(forKey: "songs")) == ["c", "a", "b"])
        try album.add(songs[1], toKey: "songs", at: -3)  // already in it: moved to the front
        #expect(try titles(album.objects(forKey: "songs")) == ["b", "c", "a"])
    }

    @Test func setObjectsReordersAnOrderedRelationship() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let songs = try ["a", "b", "c", "d"].map { try context.insert("Song", values: ["title": .string($0)]) }
        try album.setObjects(songs, forKey: "songs")
        try album.setObjects([songs[3], songs[1], songs[0], songs[2]], forKey: "songs")
        #expect(try titles(album.objects(forKey: "songs")) == ["d", "b", "a", "c"])
        // A new song and a dropped one in the same call.
        let e = try context.insert("Song", values: ["title": "e"])
        try album.setObjects([songs[1], e, songs[3], songs[2]], forKey: "songs")
        #expect(try titles(album.objects(forKey: "songs")) == ["b", "e", "d", "c"])
        #expect(try songs[0].object(forKey: "album") == nil)
        #expect(try e.object(forKey: "album") === album)
        // A song listed twice is kept once.
        try album.setObjects([songs[0], songs[0], songs[1]], forKey: "songs")
        #expect(try titles(album.objects(forKey: "songs")) == ["a", "b"])
    }

    @Test func theOrderOfAnOrderedRelationshipSurvivesASave() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let songs = try ["a", "b", "c"].map { try context.insert("Song", values: ["title": .string($0)]) }
        try album.setObjects([songs[2], songs[0], songs[1]], forKey: "songs")
        try context.save()
        let reader = container.newContext()
        let readAlbum = try reader.existingObject(with: album.objectID)
        #expect(try titles(readAlbum.objects(forKey: "songs")) == ["c", "a", "b"])
        let readSong = try reader.existingObject(with: songs[0].objectID)
        #expect(try readSong.object(forKey: "album") === readAlbum)
    }

    @Test func settingARelationshipToWhatItHoldsIsNoChange() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album", values: ["title": "A"])
        let songs = try ["a", "b"].map { try context.insert("Song", values: ["title": .string($0)]) }
        let composer = try context.insert("Composer", values: ["name": "Davis"])
        try album.setObjects(songs, forKey: "songs")
        try composer.setObjects(songs, forKey: "songs")
        try context.save()

        try album.setObjects(songs, forKey: "songs")
        try album.add(songs[1], toKey: "songs")
        try album.add(songs[1], toKey: "songs", at: 1)
        try album.add(songs[1], toKey: "songs", at: 7)
        try composer.setObjects(songs, forKey: "songs")
        try composer.add(songs[0], toKey: "songs")
        try songs[0].setObject(album, forKey: "album")
        #expect(!album.hasChanges)
        #expect(!composer.hasChanges)
        #expect(!songs[0].hasChanges)
        #expect(context.updatedObjects.isEmpty)
        #expect(!context.hasChanges)
    }

    // MARK: - Many-to-many

    @Test func addingAComposerToASongAddsTheSongToTheComposer() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue in Green"])
        let davis = try context.insert("Composer", values: ["name": "Davis"])
        let evans = try context.insert("Composer", values: ["name": "Evans"])
        try song.setObjects([davis, evans], forKey: "composers")
        #expect(try davis.objects(forKey: "songs") == [song])
        #expect(try evans.objects(forKey: "songs") == [song])

        let other = try context.insert("Song", values: ["title": "So What"])
        try davis.add(other, toKey: "songs")
        #expect(try other.objects(forKey: "composers") == [davis])
        #expect(try davis.objects(forKey: "songs") == [song, other])
        // Adding again keeps one of each.
        try other.add(davis, toKey: "composers")
        #expect(try davis.objects(forKey: "songs") == [song, other])
        #expect(try other.objects(forKey: "composers") == [davis])
    }

    @Test func removingAComposerFromASongRemovesTheSongFromTheComposer() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "Blue in Green"])
        let davis = try context.insert("Composer", values: ["name": "Davis"])
        let evans = try context.insert("Composer", values: ["name": "Evans"])
        try song.setObjects([davis, evans], forKey: "composers")
        try context.save()

        try song.remove(davis, fromKey: "composers")
        #expect(try davis.objects(forKey: "songs").isEmpty)
        #expect(try song.objects(forKey: "composers") == [evans])
        #expect(Set(context.updatedObjects) == [song, davis])

        // Replacing the composers from the composer side.
        try evans.setObjects([], forKey: "songs")
        #expect(try song.objects(forKey: "composers").isEmpty)
        try context.save()

        let reader = container.newContext()
        let readSong = try reader.existingObject(with: song.objectID)
        #expect(try readSong.objects(forKey: "composers").isEmpty)
    }

    @Test func replacingTheComposersOfASongUpdatesEveryComposer() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let song = try context.insert("Song", values: ["title": "x"])
        let composers = try ["a", "b", "c"].map { try context.insert("Composer", values: ["name": .string($0)]) }
        try song.setObjects([composers[0], composers[1]], forKey: "composers")
        try song.setObjects([composers[1], composers[2]], forKey: "composers")
        #expect(try composers[0].objects(forKey: "songs").isEmpty)
        #expect(try composers[1].objects(forKey: "songs") == [song])
        #expect(try composers[2].objects(forKey: "songs") == [song])
    }

    // MARK: - One-to-one

    @Test func aOneToOneRelationshipFollowsOnBothSides() throws {
        let container = try PersistentContainer.inMemory(model: Self.passportModel())
        let context = container.viewContext
        let ann = try context.insert("Person", values: ["name": "Ann"])
        let bob = try context.insert("Person", values: ["name": "Bob"])
        let first = try context.insert("Passport", values: ["number": "1"])
        let second = try context.insert("Passport", values: ["number": "2"])

        try ann.setObject(first, forKey: "passport")
        #expect(try first.object(forKey: "holder") === ann)

        // Bob takes Ann's passport: Ann loses it.
        try bob.setObject(first, forKey: "passport")
        #expect(try first.object(forKey: "holder") === bob)
        #expect(try ann.object(forKey: "passport") == nil)

        // Set from the other side: the second passport goes to Bob, the first loses its holder.
        try second.setObject(bob, forKey: "holder")
        #expect(try bob.object(forKey: "passport") === second)
        #expect(try first.object(forKey: "holder") == nil)

        try second.setObject(nil, forKey: "holder")
        #expect(try bob.object(forKey: "passport") == nil)
        try context.save()
    }

    @Test func aOneToOneChangeMarksEveryObjectItTouches() throws {
        let container = try PersistentContainer.inMemory(model: Self.passportModel())
        let context = container.viewContext
        let ann = try context.insert("Person", values: ["name": "Ann"])
        let bob = try context.insert("Person", values: ["name": "Bob"])
        let passport = try context.insert("Passport", values: ["number": "1"])
        try ann.setObject(passport, forKey: "passport")
        try context.save()

        try bob.setObject(passport, forKey: "passport")
        #expect(Set(context.updatedObjects) == [ann, bob, passport])
        try context.save()

        let reader = container.newContext()
        let readAnn = try reader.existingObject(with: ann.objectID)
        let readPassport = try reader.existingObject(with: passport.objectID)
        #expect(try readAnn.object(forKey: "passport") == nil)
        #expect(try readPassport.object(forKey: "holder")?.get("name") as String? == "Bob")
    }

    // MARK: - Change lists

    @Test func theChangeListsTellInsertedUpdatedAndDeletedObjects() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        #expect(!context.hasChanges)
        let album = try context.insert("Album", values: ["title": "A"])
        let song = try context.insert("Song", values: ["title": "a"])
        let gone = try context.insert("Song", values: ["title": "gone"])
        #expect(context.hasChanges)
        #expect(context.insertedObjects == [album, song, gone])
        #expect(context.updatedObjects.isEmpty)
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.insertedObjects.isEmpty)
        #expect(!album.isInserted && !album.hasChanges)

        let fresh = try context.insert("Song", values: ["title": "fresh"])
        try song.setObject(album, forKey: "album")
        try context.delete(gone)
        #expect(context.insertedObjects == [fresh])
        #expect(Set(context.updatedObjects) == [song, album])
        #expect(context.deletedObjects == [gone])
        #expect(gone.isDeleted && !gone.isUpdated)
        try context.save()
        #expect(!context.hasChanges)
        #expect(context.updatedObjects.isEmpty && context.deletedObjects.isEmpty)
        #expect(gone.context == nil)
    }
}
