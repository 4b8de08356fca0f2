import Foundation
import Testing
@testable import GraphCore

@Suite struct SmokeTests {
    @Test func insertRelateSaveAndFetch() throws {
        let container = try MusicModel.container()
        let context = container.viewContext
        let album = try context.insert("Album")
        try album.set("title", "Kind of Blue")
        let song = try context.insert("Song")
        try song.set("title", "So What")
        try song.setObject(album, forKey: "album")
        #expect(try album.objects(forKey: "songs") == [song])
        try context.save()
        #expect(!song.objectID.isTemporary)
        #expect(song.version == 1)

        let other = container.newContext()
        let songs = try other.fetch(FetchRequest(entityName: "Song", predicate: .key("album.title") == "Kind of Blue"))
        #expect(songs.count == 1)
        #expect(try songs[0].get("title") as String == "So What")
    }

    @Test func typedClasses() throws {
        let container = try MusicModel.container()
        try container.coordinator.register(Song.self, forEntity: "Song")
        try container.coordinator.register(Album.self, forEntity: "Album")
        let context = container.viewContext
        let album = try context.insert(Album.self)
        album.title = "Blue Train"
        let song = try context.insert(Song.self)
        song.title = "Moment's Notice"
        song.album = album
        #expect(album.songs == [song])
        try context.save()
        let reader = container.newContext()  // objects need their context alive
        let fetched = try reader.fetch(FetchRequest(entityName: "Song"), as: Song.self)
        #expect(fetched.map(\.title) == ["Moment's Notice"])
        #expect(fetched.first?.album?.title == "Blue Train")
    }
}
