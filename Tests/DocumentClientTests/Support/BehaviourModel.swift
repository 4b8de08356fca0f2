import GraphCore

/// The model of the behaviour tests, built in code; the `docserver` of a test reads the same
/// model from the file that ``StoreFixture`` writes with `jsonRepresentation()`.
///
/// - `Artist` —albums (deny)→ `Album` —songs (ordered, cascade)→ `Song` ←songs/tags (many-to-many,
///   nullify)→ `Tag`; every to-one side nullifies.
/// - `Specimen`: one optional attribute of every type, to round-trip values.
enum BehaviourModel {
    ///
    /// `extraTagAttributes` make another model: the same but for `Tag` (a model a server of this
    /// one does not serve).
    static func make(extraTagAttributes: [AttributeDescription] = []) throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Artist", attributes: [
                AttributeDescription("name", .string),
            ], relationships: [
                RelationshipDescription("albums", destination: "Album", inverse: "artist", toMany: true, deleteRule: .deny),
            ]),
            EntityDescription("Album", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("released", .date, isOptional: true),
                AttributeDescription("price", .decimal, isOptional: true),
            ], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true, ordered: true,
                                        deleteRule: .cascade),
                RelationshipDescription("artist", destination: "Artist", inverse: "albums"),
            ]),
            EntityDescription("Song", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("plays", .int64, defaultValue: 0),
                AttributeDescription("rating", .double, isOptional: true),
            ], relationships: [
                RelationshipDescription("album", destination: "Album", inverse: "songs"),
                RelationshipDescription("tags", destination: "Tag", inverse: "songs", toMany: true),
            ]),
            EntityDescription("Tag", attributes: [
                AttributeDescription("name", .string),
            ] + extraTagAttributes, relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "tags", toMany: true),
            ]),
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
