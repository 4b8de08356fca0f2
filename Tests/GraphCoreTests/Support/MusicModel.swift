import Foundation
@testable import GraphCore

/// The model the tests share: Song / Album (ordered to-many songs) / Artist / Composer
/// (many-to-many with Song), and an abstract Animal with Dog and Cat.
enum MusicModel {
    static func make() throws -> ObjectModel {
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
                RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true,
                                        deleteRule: .deny),
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

    /// A fresh in-memory container over the music model.
    static func container() throws -> PersistentContainer {
        try PersistentContainer.inMemory(model: make())
    }
}

/// Typed classes for the music model.
final class Song: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("plays") var plays: Int
    @Attribute("rating") var rating: Double?
    @Relationship("album") var album: Album?
    @Relationship("composers") var composers: [Composer]
}

final class Album: ManagedObject {
    @Attribute("title") var title: String
    @Attribute("released") var released: Date?
    @Relationship("songs") var songs: [Song]
    @Relationship("artist") var artist: Artist?
}

final class Artist: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("albums") var albums: [Album]
}

final class Composer: ManagedObject {
    @Attribute("name") var name: String
    @Relationship("songs") var songs: [Song]
}
