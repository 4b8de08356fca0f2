import Foundation
import Testing
@testable import GraphCore

/// SHA-256 and the version hashes of entities and models.
@Suite struct VersionHashTests {
    // MARK: - SHA-256

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ("héllo wörld ✓", "c2a59c71097b678dc5af2eb1f98ddc575b63948b0fa6740071a945673aaada4d"),
    ])
    func sha256MatchesTheStandardTestVectors(message: String, digest: String) {
        #expect(SHA256.hex(of: message) == digest)
    }

    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
        (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
        (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
    ])
    func sha256PadsMessagesAtEveryBlockBoundary(length: Int, digest: String) {
        #expect(SHA256.hex(of: String(repeating: "a", count: length)) == digest)
    }

    @Test func sha256OfAMillionBytes() {
        let digest = SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(digest.count == 32)
        let hex = digest.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        #expect(hex.joined() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // MARK: - Entity hashes

    private func model(_ json: String) throws -> ObjectModel {
        try ObjectModel(json: Data(json.utf8))
    }

    private func hash(_ entity: EntityDescription) throws -> String {
        try #require(try ObjectModel(entities: [entity]).entity(named: entity.name)).versionHash
    }

    @Test func aVersionHashIsTheSHA256OfTheDocumentedCanonicalSchema() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Album", attributes: [
                AttributeDescription("title", .string),
                AttributeDescription("released", .date, isOptional: true),
            ], relationships: [
                RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true, ordered: true),
            ]),
            EntityDescription("Song", relationships: [
                RelationshipDescription("album", destination: "Album", inverse: "songs"),
            ]),
            EntityDescription("Track", parent: "Song", isAbstract: true),
        ])
        let album = """
            entity Album
            parent -
            abstract false
            attribute released date optional=true
            relationship songs -> Song inverse=album toMany=true ordered=true
            attribute title string optional=false
            """
        #expect(model.entity(named: "Album")?.versionHash == SHA256.hex(of: album))
        let track = """
            entity Track
            parent Song
            abstract true
            relationship album -> Album inverse=songs toMany=false ordered=false
            """
        #expect(model.entity(named: "Track")?.versionHash == SHA256.hex(of: track))
        let hashes = try #require(model.entity(named: "Album")?.versionHash)
        #expect(hashes.count == 64)
        #expect(hashes.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func theCanonicalTextShownInTheModelDocumentGivesCatsHash() throws {
        let cat = "entity Cat\nparent Animal\nabstract false\nattribute lives int16 optional=false\nattribute name string optional=false"
        #expect(try MusicModel.make().entityVersionHashes["Cat"] == SHA256.hex(of: cat))
    }

    @Test func theModelHashIsTheSHA256OfTheSortedEntityHashes() throws {
        let model = try MusicModel.make()
        let joined = model.entities.map(\.name).sorted()
            .map { "\($0)=\(model.entityVersionHashes[$0] ?? "")" }
            .joined(separator: ";")
        #expect(model.versionHash == SHA256.hex(of: joined))
        #expect(model.entityVersionHashes.count == 7)
        for entity in model.entities {
            #expect(model.entityVersionHashes[entity.name] == entity.versionHash)
        }
    }

    @Test func hashesDoNotDependOnTheOrderOfPropertiesOrEntitiesInTheFile() throws {
        let first = try model(#"""
        {"entities": [
          {"name": "A", "attributes": [{"name": "x", "type": "int16"}, {"name": "y", "type": "string"}],
           "relationships": [{"name": "bs", "destination": "B", "inverse": "a", "toMany": true},
                             {"name": "c", "destination": "A"}]},
          {"name": "B", "relationships": [{"name": "a", "destination": "A", "inverse": "bs"}]}
        ]}
        """#)
        let second = try model(#"""
        {"entities": [
          {"name": "B", "relationships": [{"name": "a", "destination": "A", "inverse": "bs"}]},
          {"name": "A", "relationships": [{"name": "c", "destination": "A"},
                                          {"name": "bs", "destination": "B", "inverse": "a", "toMany": true}],
           "attributes": [{"name": "y", "type": "string"}, {"name": "x", "type": "int16"}]}
        ]}
        """#)
        #expect(first.entityVersionHashes == second.entityVersionHashes)
        #expect(first.versionHash == second.versionHash)
        #expect(first.entities.map(\.name) != second.entities.map(\.name))
    }

    @Test func theSameSchemaHashesTheSameInCodeAndFromAFile() throws {
        let fromFile = try ObjectModel(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("Fixtures/music.model.json"))
        #expect(try MusicModel.make().versionHash == fromFile.versionHash)
        #expect(try MusicModel.make().versionHash == MusicModel.make().versionHash)
    }

    @Test(arguments: [
        ("attribute type", AttributeDescription("x", .int32)),
        ("attribute optionality", AttributeDescription("x", .int16, isOptional: true)),
        ("attribute name", AttributeDescription("z", .int16)),
    ])
    func anAttributeChangeChangesTheHash(change: String, changed: AttributeDescription) throws {
        let base = try hash(EntityDescription("E", attributes: [AttributeDescription("x", .int16)]))
        let other = try hash(EntityDescription("E", attributes: [changed]))
        #expect(base != other, "\(change)")
    }

    @Test(arguments: [
        RelationshipDescription("r", destination: "F", inverse: nil),
        RelationshipDescription("r", destination: "E", inverse: "r"),
        RelationshipDescription("r", destination: "E", inverse: nil, toMany: true),
        RelationshipDescription("q", destination: "E", inverse: nil),
    ])
    func aRelationshipChangeChangesTheHash(changed: RelationshipDescription) throws {
        let baseModel = try ObjectModel(entities: [
            EntityDescription("E", relationships: [RelationshipDescription("r", destination: "E", inverse: nil)]),
            EntityDescription("F", relationships: [RelationshipDescription("r", destination: "E", inverse: nil)]),
        ])
        let otherModel = try ObjectModel(entities: [
            EntityDescription("E", relationships: [changed]),
            EntityDescription("F", relationships: [RelationshipDescription("r", destination: "E", inverse: nil)]),
        ])
        #expect(baseModel.entityVersionHashes["E"] != otherModel.entityVersionHashes["E"])
        #expect(baseModel.entityVersionHashes["F"] == otherModel.entityVersionHashes["F"])
        #expect(baseModel.versionHash != otherModel.versionHash)
    }

    @Test func orderingAToManyRelationshipChangesTheHash() throws {
        let plain = try hash(EntityDescription("E", relationships: [
            RelationshipDescription("r", destination: "E", inverse: nil, toMany: true),
        ]))
        let ordered = try hash(EntityDescription("E", relationships: [
            RelationshipDescription("r", destination: "E", inverse: nil, toMany: true, ordered: true),
        ]))
        #expect(plain != ordered)
    }

    @Test func theEntityNameAndAbstractnessChangeTheHash() throws {
        let base = try hash(EntityDescription("E"))
        #expect(try hash(EntityDescription("G")) != base)
        #expect(try hash(EntityDescription("E", isAbstract: true)) != base)
    }

    @Test func aSubEntitysHashCoversItsParentAndInheritedProperties() throws {
        func dogHash(parentName: String, animalType: AttributeType) throws -> String? {
            try ObjectModel(entities: [
                EntityDescription(parentName, attributes: [AttributeDescription("name", animalType)]),
                EntityDescription("Dog", parent: parentName),
            ]).entityVersionHashes["Dog"]
        }
        let base = try dogHash(parentName: "Animal", animalType: .string)
        #expect(try dogHash(parentName: "Pet", animalType: .string) != base)
        #expect(try dogHash(parentName: "Animal", animalType: .uuid) != base)
        let orphan = try hash(EntityDescription("Dog", attributes: [AttributeDescription("name", .string)]))
        #expect(orphan != base)
    }

    @Test func defaultsDeleteRulesCountsAndRelationshipOptionalityDoNotChangeTheHash() throws {
        func make(plays: Value?, rule: DeleteRule, min: Int?, max: Int?, optional: Bool) throws -> ObjectModel {
            try ObjectModel(entities: [
                EntityDescription("Album", attributes: [AttributeDescription("plays", .int64, defaultValue: plays)],
                                  relationships: [
                                      RelationshipDescription("songs", destination: "Song", inverse: "album", toMany: true,
                                                              deleteRule: rule, isOptional: optional,
                                                              minCount: min, maxCount: max),
                                  ]),
                EntityDescription("Song", relationships: [
                    RelationshipDescription("album", destination: "Album", inverse: "songs"),
                ]),
            ])
        }
        let base = try make(plays: nil, rule: .nullify, min: nil, max: nil, optional: true)
        let changed = try make(plays: 42, rule: .cascade, min: 1, max: 3, optional: false)
        #expect(base.entityVersionHashes == changed.entityVersionHashes)
        #expect(base.versionHash == changed.versionHash)
    }

    // MARK: - Differences

    @Test func entitiesDifferingIsEmptyForTheSameSchema() throws {
        let model = try MusicModel.make()
        #expect(model.entitiesDiffering(from: try MusicModel.make().entityVersionHashes).isEmpty)
    }

    @Test func entitiesDifferingNamesChangedMissingAndExtraEntitiesSorted() throws {
        let model = try MusicModel.make()
        var stored = model.entityVersionHashes
        stored["Song"] = String(repeating: "0", count: 64)
        stored["Dog"] = nil
        stored["Playlist"] = String(repeating: "1", count: 64)
        #expect(model.entitiesDiffering(from: stored) == ["Dog", "Playlist", "Song"])
        #expect(model.entitiesDiffering(from: [:]) == model.entities.map(\.name).sorted())
    }

    @Test func entitiesDifferingFindsTheEntityWhoseSchemaChanged() throws {
        let before = try ObjectModel(entities: [
            EntityDescription("A", attributes: [AttributeDescription("x", .int16)]),
            EntityDescription("B", attributes: [AttributeDescription("y", .string)]),
        ])
        let after = try ObjectModel(entities: [
            EntityDescription("A", attributes: [AttributeDescription("x", .int64)]),
            EntityDescription("B", attributes: [AttributeDescription("y", .string, defaultValue: "new")]),
        ])
        #expect(after.entitiesDiffering(from: before.entityVersionHashes) == ["A"])
    }
}
