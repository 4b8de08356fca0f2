import Foundation
import GraphCore
import ServerTestSupport

/// A small catalogue for fetch tests, saved in one go: 2 artists, 3 albums, 8 songs, 4 tags.
///
/// | album (artist, released) | songs in order (plays; tags) |
/// |---|---|
/// | Kind of Blue (Miles Davis, 1959-08-17) | So What (7; modal, cool), Freddie Freeloader (3; blues), Blue in Green (12; modal, ballad), All Blues (0; blues, modal) |
/// | Sketches of Spain (Miles Davis, 1960-07-18) | Concierto de Aranjuez (5), Solea (9; modal) |
/// | Sunday at the Village Vanguard (Bill Evans, 1961-10-01) | Gloria's Step (5; ballad), alice in Wonderland (9; ballad) |
struct Catalogue {
    /// Permanent IDs by song title, album title, artist name and tag name.
    let songs: [String: ObjectID]
    let albums: [String: ObjectID]
    let artists: [String: ObjectID]
    let tags: [String: ObjectID]

    static let albumRows: [(title: String, artist: String, released: Date, price: String, songs: [String])] = [
        ("Kind of Blue", "Miles Davis", Date(timeIntervalSince1970: -327_456_000), "9.99",  // 1959-08-17
         ["So What", "Freddie Freeloader", "Blue in Green", "All Blues"]),
        ("Sketches of Spain", "Miles Davis", Date(timeIntervalSince1970: -298_425_600), "11.5",  // 1960-07-18
         ["Concierto de Aranjuez", "Solea"]),
        ("Sunday at the Village Vanguard", "Bill Evans", Date(timeIntervalSince1970: -260_409_600), "12.5",  // 1961-10-01
         ["Gloria's Step", "alice in Wonderland"]),
    ]

    static let songRows: [(title: String, plays: Int64, tags: [String])] = [
        ("So What", 7, ["modal", "cool"]),
        ("Freddie Freeloader", 3, ["blues"]),
        ("Blue in Green", 12, ["modal", "ballad"]),
        ("All Blues", 0, ["blues", "modal"]),
        ("Concierto de Aranjuez", 5, []),
        ("Solea", 9, ["modal"]),
        ("Gloria's Step", 5, ["ballad"]),
        ("alice in Wonderland", 9, ["ballad"]),
    ]

    static let tagNames = ["modal", "cool", "blues", "ballad"]

    /// Inserts the catalogue into `context` and saves it.
    static func insert(into context: ObjectContext) throws -> Catalogue {
        var artists: [String: ManagedObject] = [:]
        for name in ["Miles Davis", "Bill Evans"] {
            artists[name] = try context.insert("Artist", values: ["name": .string(name)])
        }
        var tags: [String: ManagedObject] = [:]
        for name in tagNames {
            tags[name] = try context.insert("Tag", values: ["name": .string(name)])
        }
        var songs: [String: ManagedObject] = [:]
        for row in songRows {
            let song = try context.insert("Song", values: ["title": .string(row.title), "plays": .int(row.plays)])
            try song.setObjects(row.tags.compactMap { tags[$0] }, forKey: "tags")
            songs[row.title] = song
        }
        var albums: [String: ManagedObject] = [:]
        for row in albumRows {
            guard let price = Decimal(string: row.price) else { throw HarnessError("bad price \(row.price)") }
            let album = try context.insert("Album", values: [
                "title": .string(row.title), "released": .date(row.released), "price": .decimal(price),
            ])
            try album.setObject(artists[row.artist], forKey: "artist")
            try album.setObjects(row.songs.compactMap { songs[$0] }, forKey: "songs")
            albums[row.title] = album
        }
        try context.save()
        return Catalogue(songs: songs.mapValues(\.objectID), albums: albums.mapValues(\.objectID),
                         artists: artists.mapValues(\.objectID), tags: tags.mapValues(\.objectID))
    }

    /// The song titles of a set of IDs (unknown IDs as their URI, so that a comparison shows them).
    func songTitles(of ids: [ObjectID]) -> Set<String> {
        Set(ids.map { id in songs.first { $0.value == id }?.key ?? id.uriRepresentation })
    }
}
