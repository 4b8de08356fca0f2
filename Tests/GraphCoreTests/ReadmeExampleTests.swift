import Foundation
import Testing
@testable import GraphCore

/// The README's quick start, as written there, so that the document cannot drift from the API.
@Suite struct ReadmeExampleTests {
    @Test func theQuickStartRunsAsWritten() throws {
        let model = try ObjectModel(contentsOf: ModelTestFiles.musicModel)
        let container = try PersistentContainer(model: model)
        let context = container.viewContext

        let album = try context.insert("Album")
        try album.set("title", "Kind of Blue")
        let song = try context.insert("Song")
        try song.set("title", "So What")
        try song.setObject(album, forKey: "album")
        try context.save()

        var request = FetchRequest(entityName: "Song")
        request.predicate = try .format("album.title == %@ AND plays >= %d", "Kind of Blue", 0)
        request.sortDescriptors = [SortDescriptor("title")]
        let songs = try context.fetch(request)
        #expect(songs == [song])
        request.predicate = .key("album.title") == "Kind of Blue" && .key("plays") >= 0
        #expect(try context.fetch(request) == [song])

        try container.coordinator.register(ReadmeSong.self, forEntity: "Song")
        try container.coordinator.register(ReadmeAlbum.self, forEntity: "Album")
        let blue = try context.insert(ReadmeSong.self)
        blue.title = "Blue in Green"
        blue.album = album as? ReadmeAlbum
        try context.save()
        #expect(blue.album == nil)  // `album` was made before ReadmeAlbum was registered
        let typedAlbum = try context.insert(ReadmeAlbum.self)
        typedAlbum.title = "Blue Train"
        blue.album = typedAlbum
        #expect(typedAlbum.songs == [blue])
        try context.save()
    }
}

private final class ReadmeSong: ManagedObject {
    @Attribute("title") var title: String
    @Relationship("album") var album: ReadmeAlbum?
}

private final class ReadmeAlbum: ManagedObject {
    @Attribute("title") var title: String
    @Relationship("songs") var songs: [ReadmeSong]
}
