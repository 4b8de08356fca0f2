import Foundation
@testable import GraphCore

/// The small object graph the predicate table runs on (music model, saved):
///
/// | song | plays | rating | notes | album (artist) | composers |
/// |---|---|---|---|---|---|
/// | So What | 50 | 4.5 | nil | Kind of Blue (Miles Davis) | Davis |
/// | Blue in Green | 30 | nil | "modal" | Kind of Blue (Miles Davis) | Evans, Davis |
/// | Moment's Notice | 20 | 4 | nil | Blue Train (John Coltrane) | Coltrane |
/// | Blue Train | 10 | 3.5 | "Hard bop *classic*" | Blue Train (John Coltrane) | Coltrane |
/// | Naïma | 5 | 5 | "Ünïcödé" | – | Coltrane |
///
/// Albums: Kind of Blue (released 1959-08-17), Blue Train (1958-01-01), Giant Steps (no
/// songs, no release date, by John Coltrane). Artists: Miles Davis, John Coltrane, Bill
/// Evans (no albums). Composers: Davis, Evans, Coltrane. Animals: dogs Rex (barks) and
/// Fido (does not), cats Tom (9 lives) and Felix (3).
struct PredicateFixture {
    let container: PersistentContainer
    /// Objects by name (songs and albums by title, others by name; the album Blue Train is "Blue Train album").
    let objects: [String: ObjectID]

    static let kindOfBlueReleased = ISO8601.date(from: "1959-08-17T00:00:00Z") ?? Date()
    static let blueTrainReleased = ISO8601.date(from: "1958-01-01T00:00:00Z") ?? Date()

    init() throws {
        container = try MusicModel.container()
        let context = container.viewContext
        var objects: [String: ManagedObject] = [:]
        let davis = try context.insert("Artist", values: ["name": "Miles Davis"])
        let trane = try context.insert("Artist", values: ["name": "John Coltrane"])
        objects["Miles Davis"] = davis
        objects["John Coltrane"] = trane
        objects["Bill Evans"] = try context.insert("Artist", values: ["name": "Bill Evans"])
        let kob = try context.insert("Album", values: ["title": "Kind of Blue", "artist": .object(davis.objectID),
                                                       "released": .date(Self.kindOfBlueReleased)])
        let bt = try context.insert("Album", values: ["title": "Blue Train", "artist": .object(trane.objectID),
                                                      "released": .date(Self.blueTrainReleased)])
        objects["Kind of Blue"] = kob
        objects["Blue Train album"] = bt
        objects["Giant Steps"] = try context.insert("Album", values: ["title": "Giant Steps", "artist": .object(trane.objectID)])
        let composers = try ["Davis", "Evans", "Coltrane"].map { try context.insert("Composer", values: ["name": .string($0)]) }
        for composer in composers { objects[try composer.get("name") as String] = composer }
        let rows: [(String, Int64, Value, Value, ManagedObject?, [Int])] = [
            ("So What", 50, 4.5, nil, kob, [0]),
            ("Blue in Green", 30, nil, "modal", kob, [1, 0]),
            ("Moment's Notice", 20, 4.0, nil, bt, [2]),
            ("Blue Train", 10, 3.5, "Hard bop *classic*", bt, [2]),
            ("Naïma", 5, 5.0, "Ünïcödé", nil, [2]),
        ]
        for (title, plays, rating, notes, album, composerIndexes) in rows {
            let song = try context.insert("Song", values: ["title": .string(title), "plays": .int(plays), "rating": rating, "notes": notes])
            try song.setObject(album, forKey: "album")
            try song.setObjects(composerIndexes.map { composers[$0] }, forKey: "composers")
            objects[title] = song
        }
        objects["Rex"] = try context.insert("Dog", values: ["name": "Rex"])
        objects["Fido"] = try context.insert("Dog", values: ["name": "Fido", "barks": false])
        objects["Tom"] = try context.insert("Cat", values: ["name": "Tom"])
        objects["Felix"] = try context.insert("Cat", values: ["name": "Felix", "lives": 3])
        try context.save()
        self.objects = objects.mapValues(\.objectID)
    }

    /// The names of the objects of `entity` matching the predicate, sorted, fetched in a fresh context.
    func names(_ entity: String, _ predicate: GraphCore.Predicate) throws -> [String] {
        let context = container.newContext()
        let key = ["Song", "Album"].contains(entity) ? "title" : "name"
        return try context.fetch(FetchRequest(entityName: entity, predicate: predicate)).map { try $0.get(key) as String }.sorted()
    }
}
