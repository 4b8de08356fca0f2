import Foundation
import Testing
@testable import GraphCore

/// `ManagedObject` subclasses with `@Attribute` and `@Relationship` properties: registration
/// checks them against the model; reads, writes and fetches then go through them.
@Suite struct TypedClassTests {
    // Classes whose declarations do not match the music model.
    final class LyricsSong: ManagedObject {
        @Attribute("title") var title: String
        @Attribute("lyrics") var lyrics: String
    }
    final class RelationshipTitleSong: ManagedObject {
        @Relationship("title") var title: Album?
    }
    final class AttributeAlbumSong: ManagedObject {
        @Attribute("album") var album: String?
    }
    final class IntTitleSong: ManagedObject {
        @Attribute("title") var title: Int
    }
    final class NarrowPlaysSong: ManagedObject {
        @Attribute("plays") var plays: Int16
    }
    final class ArrayAlbumSong: ManagedObject {
        @Relationship("album") var album: [Album]
    }
    final class OptionalSongsAlbum: ManagedObject {
        @Relationship("songs") var songs: Song?
    }
    class NicknamedObject: ManagedObject {
        @Attribute("nickname") var nickname: String?
    }
    final class NicknamedSong: NicknamedObject {
        @Attribute("title") var title: String
    }
    /// Matches the model; its optional `title` can be set to nil, which the model refuses.
    final class LooseSong: ManagedObject {
        @Attribute("title") var title: String?
        @Attribute("plays") var plays: Int?
    }

    /// A container with the music model's typed classes registered.
    static func typedContainer() throws -> PersistentContainer {
        let container = try MusicModel.container()
        try container.coordinator.register(Song.self, forEntity: "Song")
        try container.coordinator.register(Album.self, forEntity: "Album")
        try container.coordinator.register(Artist.self, forEntity: "Artist")
        try container.coordinator.register(Composer.self, forEntity: "Composer")
        return container
    }

    // MARK: - Registration checks

    @Test func registrationRefusesAKeyTheEntityDoesNotHave() throws {
        let container = try MusicModel.container()
        let expected = GraphError.unknownKey(entity: "Song", key: "lyrics")
        #expect(throws: expected) { try container.coordinator.register(LyricsSong.self, forEntity: "Song") }
        #expect(expected.description == "entity 'Song' has no property 'lyrics'")
    }

    @Test func registrationRefusesARelationshipDeclaredForAnAttribute() throws {
        let container = try MusicModel.container()
        let expected = GraphError.wrongKind(entity: "Song", key: "title", expected: "a relationship (declared @Relationship)")
        #expect(throws: expected) { try container.coordinator.register(RelationshipTitleSong.self, forEntity: "Song") }
        #expect(expected.description.contains("Song.title"))
    }

    @Test func registrationRefusesAnAttributeDeclaredForARelationship() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "album", expected: "an attribute (declared @Attribute)")) {
            try container.coordinator.register(AttributeAlbumSong.self, forEntity: "Song")
        }
    }

    @Test func registrationRefusesASwiftTypeThatCannotHoldTheAttributeType() throws {
        let container = try MusicModel.container()
        let expected = GraphError.typeMismatch(entity: "Song", key: "title", expected: "string", got: "Int")
        #expect(throws: expected) { try container.coordinator.register(IntTitleSong.self, forEntity: "Song") }
        #expect(expected.description == "Song.title holds string values, not Int")
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "plays", expected: "int64", got: "Int16")) {
            try container.coordinator.register(NarrowPlaysSong.self, forEntity: "Song")
        }
    }

    @Test func registrationRefusesAToOneDeclaredAsAnArrayAndAToManyAsAnOptional() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.wrongKind(entity: "Song", key: "album", expected: "to-many (declare it as an optional)")) {
            try container.coordinator.register(ArrayAlbumSong.self, forEntity: "Song")
        }
        #expect(throws: GraphError.wrongKind(entity: "Album", key: "songs", expected: "to-one (declare it as an array)")) {
            try container.coordinator.register(OptionalSongsAlbum.self, forEntity: "Album")
        }
    }

    @Test func registrationChecksPropertiesInheritedFromASuperclass() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.unknownKey(entity: "Song", key: "nickname")) {
            try container.coordinator.register(NicknamedSong.self, forEntity: "Song")
        }
    }

    @Test func registrationRefusesAnUnknownEntityOrAClassOfAnotherEntity() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.unknownEntity("Track")) { try container.coordinator.register(Song.self, forEntity: "Track") }
        #expect(throws: GraphError.unknownKey(entity: "Album", key: "plays")) {
            try container.coordinator.register(Song.self, forEntity: "Album")
        }
    }

    @Test func aRefusedClassStaysUnregistered() throws {
        let container = try MusicModel.container()
        #expect(throws: GraphError.self) { try container.coordinator.register(LyricsSong.self, forEntity: "Song") }
        let context = container.viewContext
        #expect(throws: GraphError.self) { try context.insert(LyricsSong.self) }
        let song = try context.insert("Song")
        #expect(!(song is LyricsSong))
        #expect(type(of: song) == ManagedObject.self)
    }

    @Test func insertingAnUnregisteredClassIsRefused() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        #expect(throws: GraphError.unknownEntity("Song (class not registered with the coordinator)")) {
            try context.insert(Song.self)
        }
    }

    // MARK: - Typed values

    @Test func typedAttributesReadAndWriteTheValuesByKey() throws {
        let container = try Self.typedContainer()
        let context = container.viewContext
        let song = try context.insert(Song.self)
        #expect(song.title == "")        // nil reads as the placeholder
        #expect(song.plays == 0)         // the default value
        #expect(song.rating == nil)
        song.title = "So What"
        song.plays = 12
        song.rating = 4.5
        #expect(try song["title"] == "So What")
        #expect(try song["plays"] == 12)
        #expect(try song["rating"] == 4.5)
        try song.set("title", "Freddie Freeloader")
        #expect(song.title == "Freddie Freeloader")
        song.rating = nil
        #expect(try song["rating"] == .null)
        #expect(context.insertedObjects == [song])
        try context.save()
        #expect(song.title == "Freddie Freeloader")
    }

    @Test func typedRelationshipsAreOptionalsAndArraysWhoseInversesFollow() throws {
        let container = try Self.typedContainer()
        let context = container.viewContext
        let album = try context.insert(Album.self)
        album.title = "Kind of Blue"
        let songs = try ["So What", "Freddie Freeloader", "Blue in Green"].map { title in
            let song = try context.insert(Song.self)
            song.title = title
            return song
        }
        album.songs = [songs[2], songs[0]]
        #expect(album.songs == [songs[2], songs[0]])
        #expect(songs[0].album === album)
        #expect(songs[1].album == nil)

        songs[1].album = album
        #expect(album.songs.map(\.title) == ["Blue in Green", "So What", "Freddie Freeloader"])

        songs[0].album = nil
        #expect(album.songs.map(\.title) == ["Blue in Green", "Freddie Freeloader"])

        let davis = try context.insert(Composer.self)
        davis.name = "Davis"
        let evans = try context.insert(Composer.self)
        evans.name = "Evans"
        songs[2].composers = [evans, davis]
        #expect(davis.songs == [songs[2]])
        #expect(evans.songs == [songs[2]])

        let artist = try context.insert(Artist.self)
        artist.name = "Miles Davis"
        album.artist = artist
        #expect(artist.albums == [album])
        try context.save()
    }

    @Test func aFetchReturnsInstancesOfTheRegisteredClass() throws {
        let container = try Self.typedContainer()
        let writer = container.viewContext
        let album = try writer.insert(Album.self)
        album.title = "Kind of Blue"
        for title in ["So What", "Blue in Green"] {
            let song = try writer.insert("Song")   // by name: still a Song
            #expect(song is Song)
            try song.set("title", title)
            try song.setObject(album, forKey: "album")
        }
        try writer.save()

        let reader = container.newContext()
        let objects = try reader.fetch(FetchRequest(entityName: "Song"))
        #expect(objects.count == 2)
        #expect(objects.allSatisfy { $0 is Song })
        let songs = try reader.fetch(FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")]), as: Song.self)
        #expect(songs.map(\.title) == ["Blue in Green", "So What"])
        let readAlbum = try #require(songs.first?.album)
        #expect(readAlbum.title == "Kind of Blue")
        #expect(Set(readAlbum.songs) == Set(songs))
        #expect(reader.object(with: album.objectID) is Album)
        #expect(throws: GraphError.typeMismatch(entity: "Song", key: "(class)", expected: "Album", got: "Song")) {
            try reader.fetch(FetchRequest(entityName: "Song"), as: Album.self)
        }
    }

    // MARK: - Errors of setters

    @Test func aSetterErrorMakesTheNextSaveThrow() throws {
        let container = try Self.typedContainer()
        let context = container.viewContext
        let other = container.newContext()
        let song = try context.insert(Song.self)
        song.title = "So What"
        let foreignAlbum = try other.insert(Album.self)
        foreignAlbum.title = "Elsewhere"

        song.album = foreignAlbum   // cannot throw here
        #expect(song.album == nil)
        #expect(foreignAlbum.songs.isEmpty)
        #expect(context.hasChanges)
        #expect(throws: GraphError.differentContexts(entity: "Song", key: "album")) { try context.save() }
        #expect(song.objectID.isTemporary)
        #expect(try container.newContext().count(for: FetchRequest(entityName: "Song")) == 0)
    }

    @Test func nilIntoARequiredAttributeThroughATypedPropertyMakesTheNextSaveThrow() throws {
        let container = try MusicModel.container()
        try container.coordinator.register(LooseSong.self, forEntity: "Song")
        let context = container.viewContext
        let song = try context.insert(LooseSong.self)
        song.title = "So What"
        song.title = nil
        song.plays = nil
        #expect(song.title == "So What")
        #expect(song.plays == 0)
        #expect(throws: GraphError.requiredValue(entity: "Song", key: "title")) { try context.save() }
    }

    @Test func typedPropertiesOfADeletedObjectReadButDoNotWrite() throws {
        let container = try Self.typedContainer()
        let context = container.viewContext
        let song = try context.insert(Song.self)
        song.title = "So What"
        try context.save()
        try context.delete(song)
        song.title = "changed"
        #expect(song.title == "So What")
        #expect(throws: GraphError.objectInaccessible(song.objectID, reason: "it was deleted")) { try context.save() }
    }
}
