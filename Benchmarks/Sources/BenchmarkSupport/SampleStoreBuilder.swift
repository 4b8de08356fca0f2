import Foundation
import GraphCore

/// Writes a JSON store of the sample model (Artist, Album, Song, Tag) through GraphCore and
/// JSONAtomicStore (the caller registers the store type: `JSONAtomicStore.register()`). Of
/// every 100 objects, 1 is an Artist, 9 are Albums (each by one Artist, about 10 Songs each),
/// 1 is a Tag and 89 are Songs with a title, distinct `plays` (0, 1, 2, …: a range of plays
/// names exactly that many Songs) and a rating; every tenth Song has a Tag.
public struct SampleStoreBuilder {
    public let model: ObjectModel

    public init(model: ObjectModel) { self.model = model }

    /// How many objects of each entity.
    public struct Shape: CustomStringConvertible {
        public let artists, albums, tags, songs: Int
        public var total: Int { artists + albums + tags + songs }
        public var description: String { "\(grouped(total)) objects: \(grouped(songs)) Songs, \(grouped(albums)) Albums, \(grouped(artists)) Artists, \(grouped(tags)) Tags" }

        public init(objects: Int) {
            artists = max(objects / 100, 1)
            albums = max(objects * 9 / 100, 1)
            tags = max(objects / 100, 1)
            songs = max(objects - artists - albums - tags, 1)
        }
    }

    /// Writes a store of about `objects` objects at `url`; returns its shape.
    public func build(objects: Int, at url: URL) throws -> Shape {
        let shape = Shape(objects: objects)
        let container = try PersistentContainer(model: model, storeType: "JSON", storeURL: url)
        defer { for store in container.coordinator.persistentStores { container.coordinator.remove(store) } }
        let context = container.viewContext
        let released = Date(timeIntervalSince1970: 1_600_000_000)
        var artists: [ManagedObject] = []
        for index in 0..<shape.artists {
            let artist = try context.insert("Artist")
            try artist.setValue(.string("Artist \(index)"), forKey: "name")
            try artist.setValue(.string(["FR", "US", "JP", "BR"][index % 4]), forKey: "country")
            artists.append(artist)
        }
        var albums: [ManagedObject] = []
        for index in 0..<shape.albums {
            let album = try context.insert("Album")
            try album.setValue(.string("Album \(index)"), forKey: "title")
            try album.setValue(.date(released.addingTimeInterval(Double(index) * 86_400)), forKey: "released")
            try album.setValue(.decimal(Decimal(999 + index % 1000) / 100), forKey: "price")
            try album.setObject(artists[index % artists.count], forKey: "artist")
            albums.append(album)
        }
        var tags: [ManagedObject] = []
        for index in 0..<shape.tags {
            let tag = try context.insert("Tag")
            try tag.setValue(.string("tag \(index)"), forKey: "label")
            tags.append(tag)
        }
        for index in 0..<shape.songs {
            let song = try context.insert("Song")
            try song.setValue(.string("Song \(index)"), forKey: "title")
            try song.setValue(.int(Int64(index)), forKey: "plays")
            try song.setValue(.double(Double(index % 50) / 10), forKey: "rating")
            try song.setObject(albums[index % albums.count], forKey: "album")
            if index % 10 == 0 { try song.add(tags[(index / 10) % tags.count], toKey: "tags") }
        }
        try context.save()
        return shape
    }
}
