import Foundation
import PostgresTestSupport
import GraphCore
import PostgresStore

/// The model of the PostgreSQL store's tests, built in code.
///
/// - `Artist` —albums (deny)→ `Album` —songs (ordered, cascade)→ `Song` ←songs/tags
///   (many-to-many, nullify)→ `Tag`; every to-one side nullifies.
/// - `Media` (abstract) with sub-entities `Book` and `Film`: one table for the hierarchy.
/// - `Tag.name` is unique; `Song` has fetch indexes on `title`, `plays`, `album` and `album, plays`.
/// - `Specimen`: one optional attribute of every type, to round-trip values.
enum TestModel {
    static func make(extraTagAttributes: [AttributeDescription] = []) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Artist", attributes: [AttributeDescription("name", .string)], relationships: [
                RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true, deleteRule: .deny),
            ]),
            EntityDescription("Album", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("released", .date, isOptional: true),
            ], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true, ordered: true, deleteRule: .cascade),
                RelationshipDescription("artist", destination: "Artist", inverse: "albums"),
            ]),
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("plays", .int64, defaultValue: 0),
                AttributeDescription("rating", .double, isOptional: true),
                AttributeDescription("serial", .int64, isOptional: true),
            ], relationships: [
                RelationshipDescription("album", destination: "Album", inverse: "songs"),
                RelationshipDescription("tags", destination: "Tag", inverse: "songs", toMany: true),
            ], fetchIndexes: [
                FetchIndexDescription(name: "byTitle", elements: [.init(.property("title"))]),
                FetchIndexDescription(name: "byPlays", elements: [.init(.property("plays"), ascending: false)]),
                FetchIndexDescription(name: "byAlbum", elements: [.init(.property("album"))]),
                FetchIndexDescription(name: "byAlbumPlays", elements: [.init(.property("album")), .init(.property("plays"))]),
            ]),
            EntityDescription("Tag", attributes: [AttributeDescription("name", .string)] + extraTagAttributes, relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "tags", toMany: true),
            ], uniquenessConstraints: [["name"]]),
            EntityDescription("Media", isAbstract: true, attributes: [AttributeDescription("title", .string)]),
            EntityDescription("Book", parent: "Media", attributes: [AttributeDescription("pages", .int32, isOptional: true)]),
            EntityDescription("Film", parent: "Media", attributes: [AttributeDescription("minutes", .int32, isOptional: true)]),
            EntityDescription("Specimen", attributes: [
                AttributeDescription("label", .string),
                AttributeDescription("text", .string, isOptional: true),
                AttributeDescription("small", .int16, isOptional: true),
                AttributeDescription("medium", .int32, isOptional: true),
                AttributeDescription("large", .int64, isOptional: true),
                AttributeDescription("ratio", .double, isOptional: true),
                AttributeDescription("weight", .float, isOptional: true),
                AttributeDescription("price", .decimal, isOptional: true),
                AttributeDescription("flag", .bool, isOptional: true),
                AttributeDescription("moment", .date, isOptional: true),
                AttributeDescription("blob", .binary, isOptional: true),
                AttributeDescription("uid", .uuid, isOptional: true),
                AttributeDescription("link", .uri, isOptional: true),
            ]),
        ])
    }
}

/// A coordinator and context on a new database of the test cluster.
struct PostgresFixture {
    let url: URL
    let model: ObjectModel
    let coordinator: StoreCoordinator
    let store: PostgresStore
    let context: ObjectContext

    init(model: ObjectModel? = nil, url: URL? = nil) throws {
        PostgresStore.register()
        self.url = try url ?? PostgresCluster.newDatabase()
        self.model = try model ?? TestModel.make()
        coordinator = StoreCoordinator(model: self.model)
        guard let store = try coordinator.addPersistentStore(type: PostgresStore.storeType, at: self.url) as? PostgresStore else {
            throw PostgresStoreError.damagedSchema("the registry made another store class")
        }
        self.store = store
        context = ObjectContext(coordinator: coordinator)
    }

    /// Another coordinator (as another server would have) on the same database.
    func secondCoordinator() throws -> PostgresFixture { try PostgresFixture(model: model, url: url) }
}
