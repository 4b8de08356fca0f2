import Foundation
import GraphCore

/// The model and objects of the predicate tests (`Tests/GraphCoreTests`: songs, albums,
/// artists, composers, dogs and cats) in an in-memory store, so that the predicates of
/// `docs/PREDICATES.md` and of the tests name real keys and match real objects.
public struct MusicFixture {
    public let container: PersistentContainer
    /// Objects by name (songs and albums by title, the others by name).
    public let objects: [String: ObjectID]

    public static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("plays", .int64, defaultValue: 0),
                AttributeDescription("rating", .double, isOptional: true),
                AttributeDescription("notes", .string, isOptional: true),
            ], relationships: [
                RelationshipDescription("album", destination: "Album", inverse: "songs"),
                RelationshipDescription("composers", destination: "Composer", inverse: "songs", toMany: true),
            ]),
            EntityDescription("Album", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("released", .date, isOptional: true),
            ], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true, ordered: true,
                                        deleteRule: .cascade),
                RelationshipDescription("artist", destination: "Artist", inverse: "albums"),
            ]),
            EntityDescription("Artist", attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true, deleteRule: .deny),
            ]),
            EntityDescription("Composer", attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "composers", toMany: true),
            ]),
            EntityDescription("Animal", isAbstract: true, attributes: [
                AttributeDescription("name", .string),
            ]),
            EntityDescription("Dog", parent: "Animal", attributes: [
                AttributeDescription("barks", .bool, defaultValue: true),
            ]),
            EntityDescription("Cat", parent: "Animal", attributes: [
                AttributeDescription("lives", .int16, defaultValue: 9),
            ]),
        ])
    }

    public init() throws {
        container = try PersistentContainer.inMemory(model: Self.model())
        let context = container.viewContext
        var objects: [String: ManagedObject] = [:]
        let davis = try context.insert("Artist", values: ["name": "Miles Davis"])
        let trane = try context.insert("Artist", values: ["name": "John Coltrane"])
        objects["Miles Davis"] = davis
        objects["John Coltrane"] = trane
        objects["Bill Evans"] = try context.insert("Artist", values: ["name": "Bill Evans"])
        let kob = try context.insert("Album", values: ["title": "Kind of Blue", "artist": .object(davis.objectID),
                                                       "released": .date(Date(timeIntervalSince1970: -327_628_800))])
        let bt = try context.insert("Album", values: ["title": "Blue Train", "artist": .object(trane.objectID),
                                                      "released": .date(Date(timeIntervalSince1970: -378_691_200))])
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
            // The 64-bit edges, where integer and double comparisons used to trap.
            ("Edge max", Int64.max, .double(9_223_372_036_854_775_808.0), nil, nil, []),
            ("Edge min", Int64.min, .double(-.infinity), "-0", nil, []),
            ("Edge NaN", -1, .double(.nan), nil, bt, [0]),
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
}
