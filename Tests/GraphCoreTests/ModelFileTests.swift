import Foundation
import Testing
@testable import GraphCore

/// Reading and writing the JSON model file (`docs/MODEL.md`).
@Suite struct ModelFileTests {
    /// Loads a model from JSON text and returns the error it throws, or nil when it loads.
    private func loadError(_ json: String, path: String = "test.json") -> ModelError? {
        do {
            _ = try ObjectModel(json: Data(json.utf8), path: path)
            return nil
        } catch {
            return error
        }
    }

    private func load(_ json: String) throws -> ObjectModel {
        try ObjectModel(json: Data(json.utf8))
    }

    /// A one-entity model file with this attribute.
    private func attributeFile(_ attribute: String) -> String {
        #"{"entities": [{"name": "Thing", "attributes": [\#(attribute)]}]}"#
    }

    /// JSON re-serialized with sorted keys, to compare documents independently of layout.
    private func canonicalJSON(_ data: Data) throws -> Data {
        let object = try JSONSerialization.jsonObject(with: data)
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The schema of a model as comparable values, entity by entity.
    private func schema(of model: ObjectModel) -> [String] {
        model.entities.map { entity in
            "\(entity.name) parent=\(entity.parentName ?? "-") abstract=\(entity.isAbstract) "
                + "attributes=\(entity.ownAttributes) relationships=\(entity.ownRelationships)"
        }
    }

    // MARK: - The fixture and the document

    @Test func theMusicModelFileLoadsAsTheModelBuiltInCode() throws {
        let fromFile = try ObjectModel(contentsOf: ModelTestFiles.musicModel)
        let inCode = try MusicModel.make()
        #expect(schema(of: fromFile) == schema(of: inCode))
        #expect(fromFile.entityVersionHashes == inCode.entityVersionHashes)
        #expect(fromFile.versionHash == inCode.versionHash)
        let album = try #require(fromFile.entity(named: "Album"))
        let songs = try #require(album.property(named: "songs")?.relationship)
        #expect(songs.isToMany && songs.isOrdered && songs.deleteRule == .cascade)
        #expect(fromFile.entity(named: "Artist")?.property(named: "albums")?.relationship?.deleteRule == .deny)
        #expect(fromFile.entity(named: "Cat")?.property(named: "lives")?.attribute?.defaultValue == .int(9))
    }

    @Test func theExampleInTheModelDocumentIsTheMusicModelFile() throws {
        let document = try String(contentsOf: ModelTestFiles.modelDocument, encoding: .utf8)
        let marker = "<!-- example: Tests/GraphCoreTests/Fixtures/music.model.json -->"
        let afterMarker = try #require(document.range(of: marker), "docs/MODEL.md has no example marker").upperBound
        let fenceOpen = try #require(document.range(of: "```json\n", range: afterMarker..<document.endIndex))
        let fenceClose = try #require(document.range(of: "\n```", range: fenceOpen.upperBound..<document.endIndex))
        let example = Data(document[fenceOpen.upperBound..<fenceClose.lowerBound].utf8)
        let fixture = try Data(contentsOf: ModelTestFiles.musicModel)
        #expect(try canonicalJSON(example) == canonicalJSON(fixture))
        let model = try ObjectModel(json: example, path: "docs/MODEL.md")
        #expect(model.versionHash == (try MusicModel.make()).versionHash)
    }

    // MARK: - Writing

    @Test func aWrittenModelLoadsBackWithEqualHashesAndSchema() throws {
        let original = try ObjectModel(contentsOf: ModelTestFiles.musicModel)
        let written = original.jsonRepresentation()
        let reloaded = try ObjectModel(json: written, path: "written")
        #expect(reloaded.versionHash == original.versionHash)
        #expect(reloaded.entityVersionHashes == original.entityVersionHashes)
        #expect(schema(of: reloaded) == schema(of: original))
        #expect(reloaded.description == original.description)
        #expect(reloaded.jsonRepresentation() == written)
    }

    @Test func renamingIdentifiersLoadAndWriteBackAndLeaveTheVersionHashAlone() throws {
        let plain = """
        {"entities": [{"name": "Track", "attributes": [{"name": "title", "type": "string"}],
          "relationships": [{"name": "next", "destination": "Track", "inverse": "previous"},
                            {"name": "previous", "destination": "Track", "inverse": "next"}]}]}
        """
        let renamed = """
        {"entities": [{"name": "Track", "renamingIdentifier": "Song",
          "attributes": [{"name": "title", "type": "string", "renamingIdentifier": "name"}],
          "relationships": [{"name": "next", "destination": "Track", "inverse": "previous", "renamingIdentifier": "following"},
                            {"name": "previous", "destination": "Track", "inverse": "next"}]}]}
        """
        let model = try ObjectModel(json: Data(renamed.utf8))
        let track = try #require(model.entity(named: "Track"))
        #expect(track.renamingIdentifier == "Song")
        #expect(track.attributes.first?.renamingIdentifier == "name")
        #expect(track.relationships.first { $0.name == "next" }?.renamingIdentifier == "following")
        #expect(track.relationships.first { $0.name == "previous" }?.renamingIdentifier == nil)
        #expect(model.versionHash == (try ObjectModel(json: Data(plain.utf8))).versionHash)
        let reloaded = try ObjectModel(json: model.jsonRepresentation())
        #expect(reloaded.entity(named: "Track")?.renamingIdentifier == "Song")
        #expect(reloaded.entity(named: "Track")?.attributes.first?.renamingIdentifier == "name")
        #expect(reloaded.entity(named: "Track")?.relationships.first { $0.name == "next" }?.renamingIdentifier == "following")
    }

    @Test func theWrittenFileSpellsOutEveryKeyWithSortedKeys() throws {
        let model = try MusicModel.make()
        let text = try #require(String(data: model.jsonRepresentation(), encoding: .utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let entities = try #require(object["entities"] as? [[String: Any]])
        #expect(entities.map { $0["name"] as? String } == ["Song", "Album", "Artist", "Composer", "Animal", "Dog", "Cat"])
        let song = entities[0]
        #expect(song["abstract"] as? Bool == false)
        #expect(song["parent"] == nil)
        let attributes = try #require(song["attributes"] as? [[String: Any]])
        #expect(Set(attributes[1].keys) == ["name", "type", "optional", "default"])
        #expect(Set(attributes[0].keys) == ["name", "type", "optional"])
        let relationships = try #require(song["relationships"] as? [[String: Any]])
        #expect(Set(relationships[0].keys) == ["name", "destination", "inverse", "toMany", "deleteRule", "optional"])
        #expect(Set(relationships[1].keys) == ["name", "destination", "inverse", "toMany", "ordered", "deleteRule", "optional"])
        #expect(entities[5]["parent"] as? String == "Animal")
        #expect(text.contains("\"deleteRule\" : \"cascade\""))
        // Sorted keys: "abstract" comes before "name" in every entity.
        let abstractIndex = try #require(text.range(of: "\"abstract\""))
        let nameIndex = try #require(text.range(of: "\"name\""))
        #expect(abstractIndex.lowerBound < nameIndex.lowerBound)
    }

    @Test func defaultsOfEveryTypeAreWrittenInTheirDocumentedFormAndReadBack() throws {
        let date = Date(timeIntervalSince1970: 1_714_566_600.25)
        let uuid = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let url = try #require(URL(string: "https://example.com/a?b=c"))
        let decimal = try #require(Decimal(string: "12.345"))
        let attributes: [AttributeDescription] = [
            AttributeDescription("i16", .int16, defaultValue: -5),
            AttributeDescription("i32", .int32, defaultValue: 2_000_000_000),
            AttributeDescription("i64", .int64, defaultValue: .int(Int64.max)),
            AttributeDescription("d", .double, defaultValue: 2.5),
            AttributeDescription("dNaN", .double, defaultValue: .double(.nan)),
            AttributeDescription("dInf", .double, defaultValue: .double(.infinity)),
            AttributeDescription("f", .float, defaultValue: .double(Double(Float(0.1)))),
            AttributeDescription("fNegInf", .float, defaultValue: .double(-.infinity)),
            AttributeDescription("dec", .decimal, defaultValue: .decimal(decimal)),
            AttributeDescription("s", .string, defaultValue: "Blue \"note\""),
            AttributeDescription("b", .bool, defaultValue: false),
            AttributeDescription("dt", .date, defaultValue: .date(date)),
            AttributeDescription("bin", .binary, defaultValue: .binary(Data([0, 1, 2, 255]))),
            AttributeDescription("u", .uuid, defaultValue: .uuid(uuid)),
            AttributeDescription("url", .uri, defaultValue: .uri(url)),
            AttributeDescription("none", .string, isOptional: true, defaultValue: nil as Value),
        ]
        let model = try ObjectModel(entities: [EntityDescription("Thing", attributes: attributes)])
        let data = model.jsonRepresentation()

        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let entity = try #require((object["entities"] as? [[String: Any]])?.first)
        let written = try #require(entity["attributes"] as? [[String: Any]])
        var defaults: [String: Any] = [:]
        for attribute in written {
            if let name = attribute["name"] as? String { defaults[name] = attribute["default"] }
        }
        #expect(defaults["i16"] as? Int == -5)
        #expect(defaults["i64"] as? Int64 == Int64.max)
        #expect(defaults["d"] as? Double == 2.5)
        #expect(defaults["dNaN"] as? String == "NaN")
        #expect(defaults["dInf"] as? String == "Infinity")
        #expect(defaults["fNegInf"] as? String == "-Infinity")
        #expect(defaults["dec"] as? String == "12.345")
        #expect(defaults["b"] as? Bool == false)
        #expect(defaults["dt"] as? String == "2024-05-01T12:30:00.250Z")
        #expect(defaults["bin"] as? String == "AAEC/w==")
        #expect(defaults["u"] as? String == "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        #expect(defaults["url"] as? String == "https://example.com/a?b=c")
        #expect(!defaults.keys.contains("none"), "a nil default is written as no default")

        let reloaded = try ObjectModel(json: data)
        let thing = try #require(reloaded.entity(named: "Thing"))
        for original in attributes {
            let loaded = try #require(thing.property(named: original.name)?.attribute)
            if original.defaultValue == .null {
                #expect(loaded.defaultValue == nil)
            } else if case .double(let value) = original.defaultValue, value.isNaN {
                guard case .double(let loadedValue) = loaded.defaultValue else {
                    Issue.record("\(original.name) lost its NaN default: \(String(describing: loaded.defaultValue))")
                    continue
                }
                #expect(loadedValue.isNaN)
            } else {
                #expect(loaded == original, "\(original.name)")
            }
        }
    }

    // MARK: - Reading

    @Test func omittedKeysTakeTheirDefaults() throws {
        let model = try load(#"""
        {"entities": [
          {"name": "Box",
           "attributes": [{"name": "label", "type": "string"}],
           "relationships": [{"name": "next", "destination": "Box"}]},
          {"name": "Empty"}
        ]}
        """#)
        let box = try #require(model.entity(named: "Box"))
        #expect(box.parentName == nil)
        #expect(!box.isAbstract)
        #expect(box.ownAttributes == [AttributeDescription("label", .string, isOptional: false, defaultValue: nil)])
        let next = try #require(box.ownRelationships.first)
        #expect(next == RelationshipDescription("next", destination: "Box", inverse: nil, toMany: false, ordered: false,
                                                deleteRule: .nullify, isOptional: true, minCount: nil, maxCount: nil))
        let empty = try #require(model.entity(named: "Empty"))
        #expect(empty.properties.isEmpty)
    }

    @Test func everyKeyIsRead() throws {
        let model = try load(#"""
        {"entities": [
          {"name": "Base", "abstract": true,
           "attributes": [{"name": "code", "type": "int32", "optional": true, "default": 7}]},
          {"name": "Shelf", "parent": "Base", "abstract": false,
           "relationships": [{"name": "books", "destination": "Book", "inverse": "shelf", "toMany": true,
                              "ordered": true, "deleteRule": "noAction", "optional": false,
                              "minCount": 1, "maxCount": 10}]},
          {"name": "Book",
           "relationships": [{"name": "shelf", "destination": "Shelf", "inverse": "books"}]}
        ]}
        """#)
        let base = try #require(model.entity(named: "Base"))
        #expect(base.isAbstract)
        #expect(base.ownAttributes == [AttributeDescription("code", .int32, isOptional: true, defaultValue: 7)])
        let shelf = try #require(model.entity(named: "Shelf"))
        #expect(shelf.parentName == "Base")
        #expect(!shelf.isAbstract)
        #expect(shelf.properties.map(\.name) == ["code", "books"])
        #expect(shelf.ownRelationships == [
            RelationshipDescription("books", destination: "Book", inverse: "shelf", toMany: true, ordered: true,
                                    deleteRule: .noAction, isOptional: false, minCount: 1, maxCount: 10),
        ])
    }

    @Test func defaultsAreReadInEachTypesForm() throws {
        let model = try load(attributeFile(#"""
            {"name": "i16", "type": "int16", "default": -32768},
            {"name": "i64", "type": "int64", "default": 9223372036854775807},
            {"name": "d", "type": "double", "default": 2.5},
            {"name": "dWhole", "type": "double", "default": 3},
            {"name": "dNegInf", "type": "double", "default": "-Infinity"},
            {"name": "f", "type": "float", "default": 0.1},
            {"name": "dec", "type": "decimal", "default": "0.1"},
            {"name": "decWhole", "type": "decimal", "default": 4},
            {"name": "s", "type": "string", "default": "Infinity"},
            {"name": "b", "type": "bool", "default": true},
            {"name": "dt", "type": "date", "default": "2024-05-01T14:30:00.250+02:00"},
            {"name": "bin", "type": "binary", "default": "aGk="},
            {"name": "u", "type": "uuid", "default": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"},
            {"name": "url", "type": "uri", "default": "mailto:someone@example.com"},
            {"name": "none", "type": "date", "optional": true, "default": null}
            """#))
        let thing = try #require(model.entity(named: "Thing"))
        func value(_ name: String) -> Value? { thing.property(named: name)?.attribute?.defaultValue }
        #expect(value("i16") == .int(-32768))
        #expect(value("i64") == .int(Int64.max))
        #expect(value("d") == .double(2.5))
        #expect(value("dWhole") == .double(3))
        #expect(value("dNegInf") == .double(-.infinity))
        #expect(value("f") == .double(Double(Float(0.1))))
        #expect(value("dec") == .decimal(Decimal(string: "0.1") ?? 0))
        #expect(value("decWhole") == .decimal(4))
        #expect(value("s") == .string("Infinity"))
        #expect(value("b") == .bool(true))
        #expect(value("dt") == .date(Date(timeIntervalSince1970: 1_714_566_600.25)))
        #expect(value("bin") == .binary(Data("hi".utf8)))
        #expect(value("u") == UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f").map(Value.uuid))
        #expect(value("url") == URL(string: "mailto:someone@example.com").map(Value.uri))
        #expect(thing.property(named: "none")?.attribute?.defaultValue == nil)
    }

    @Test(arguments: [
        (#"{"name": "n", "type": "int64", "default": "zero"}"#, AttributeType.int64),
        (#"{"name": "n", "type": "int64", "default": 1.5}"#, .int64),
        (#"{"name": "n", "type": "int64", "default": true}"#, .int64),
        (#"{"name": "n", "type": "int16", "default": 40000}"#, .int16),
        (#"{"name": "n", "type": "int32", "default": -2147483649}"#, .int32),
        (#"{"name": "n", "type": "double", "default": "2.5"}"#, .double),
        (#"{"name": "n", "type": "float", "default": "nan"}"#, .float),
        (#"{"name": "n", "type": "float", "default": 1e300}"#, .float),
        (#"{"name": "n", "type": "decimal", "default": 1.5}"#, .decimal),
        (#"{"name": "n", "type": "decimal", "default": "12abc"}"#, .decimal),
        (#"{"name": "n", "type": "decimal", "default": "abc"}"#, .decimal),
        (#"{"name": "n", "type": "decimal", "default": ""}"#, .decimal),
        (#"{"name": "n", "type": "string", "default": 5}"#, .string),
        (#"{"name": "n", "type": "bool", "default": 1}"#, .bool),
        (#"{"name": "n", "type": "bool", "default": "true"}"#, .bool),
        (#"{"name": "n", "type": "date", "default": "2024-13-01T00:00:00Z"}"#, .date),
        (#"{"name": "n", "type": "date", "default": 1714566600}"#, .date),
        (#"{"name": "n", "type": "binary", "default": "not base64!"}"#, .binary),
        (#"{"name": "n", "type": "uuid", "default": "not-a-uuid"}"#, .uuid),
        (#"{"name": "n", "type": "uri", "default": "no scheme"}"#, .uri),
    ])
    func aDefaultOfTheWrongTypeInAFileIsRefused(attribute: String, type: AttributeType) {
        let error = loadError(attributeFile(attribute))
        guard case .invalidDefault(let entity, let name, let errorType, _) = error else {
            Issue.record("expected invalidDefault, got \(String(describing: error))")
            return
        }
        #expect(entity == "Thing")
        #expect(name == "n")
        #expect(errorType == type)
        #expect(error?.description.hasPrefix("Thing.n has a default value that is not a \(type)") == true)
    }

    @Test func aNullDefaultMeansNoDefault() throws {
        let model = try load(attributeFile(#"{"name": "title", "type": "string", "default": null}"#))
        let title = try #require(model.entity(named: "Thing")?.property(named: "title")?.attribute)
        #expect(title == AttributeDescription("title", .string))
    }

    @Test func anUnknownTypeIsRefusedNamingEntityPropertyAndType() {
        let error = loadError(attributeFile(#"{"name": "count", "type": "integer"}"#))
        #expect(error == .unknownType(entity: "Thing", property: "count", type: "integer"))
        #expect(error?.description.hasPrefix("Thing.count has unknown type 'integer' (known: int16,") == true)
    }

    @Test func anUnknownDeleteRuleIsAnInvalidFileNamingThePlace() {
        let error = loadError(#"""
        {"entities": [
          {"name": "A"},
          {"name": "B", "relationships": [{"name": "a", "destination": "A", "deleteRule": "explode"}]}
        ]}
        """#, path: "shop.model.json")
        #expect(error == .invalidFile(
            path: "shop.model.json",
            reason: "entities[1].relationships[0].deleteRule: unknown delete rule 'explode' in B.a "
                + "(known: nullify, cascade, deny, noAction)"))
    }

    @Test func theModelsOwnErrorsComeThroughFromAFile() {
        let error = loadError(#"""
        {"entities": [{"name": "Song", "relationships": [{"name": "album", "destination": "Album"}]}]}
        """#)
        #expect(error == .unknownDestination(entity: "Song", relationship: "album", destination: "Album"))
    }

    // MARK: - Malformed files

    @Test func aFileThatIsNotJSONIsAnInvalidFile() {
        let error = loadError("entities: [Song]", path: "broken.json")
        guard case .invalidFile(let path, let reason) = error else {
            Issue.record("expected invalidFile, got \(String(describing: error))")
            return
        }
        #expect(path == "broken.json")
        #expect(reason.hasPrefix("the top level: "))
        #expect(reason.contains("JSON"))
        #expect(error?.description.hasPrefix("model file broken.json: the top level: ") == true)
    }

    @Test func anEmptyFileIsAnInvalidFile() {
        guard case .invalidFile(_, let reason) = loadError("") else {
            Issue.record("expected invalidFile")
            return
        }
        #expect(reason.hasPrefix("the top level: "))
    }

    @Test(arguments: [
        (#"{}"#, "the top level: missing key 'entities'"),
        (#"[]"#, "the top level: expected"),
        (#"{"entities": {}}"#, "entities: expected"),
        (#"{"entities": [{"name": "A"}, {"attributes": []}]}"#, "entities[1]: missing key 'name'"),
        (#"{"entities": [{"name": 5}]}"#, "entities[0].name: expected a string"),
        (#"{"entities": [{"name": null}]}"#, "entities[0].name: a value is missing"),
        (#"{"entities": [{"name": "A", "abstract": "yes"}]}"#, "entities[0].abstract: expected Bool"),
        (#"{"entities": [{"name": "A", "parent": 1}]}"#, "entities[0].parent: expected a string"),
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x"}]}]}"#, "entities[0].attributes[0]: missing key 'type'"),
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "int16", "optional": 1}]}]}"#,
         "entities[0].attributes[0].optional: expected Bool"),
        (#"{"entities": [{"name": "A", "attributes": [{"name": "x", "type": "int16", "default": [1]}]}]}"#,
         "entities[0].attributes[0].default: a default must be a number, string, bool or null"),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r"}]}]}"#,
         "entities[0].relationships[0]: missing key 'destination'"),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "toMany": "yes"}]}]}"#,
         "entities[0].relationships[0].toMany: expected Bool"),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "toMany": true, "minCount": 1.5}]}]}"#,
         "entities[0].relationships[0].minCount: expected a whole number, got 1.5"),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "toMany": true, "maxCount": 1e30}]}]}"#,
         "entities[0].relationships[0].maxCount: expected a whole number"),
        (#"{"entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "toMany": true, "maxCount": "2"}]}]}"#,
         "entities[0].relationships[0].maxCount: expected Double"),
    ])
    func aMalformedFileIsAnInvalidFileNamingThePlace(json: String, reasonPrefix: String) {
        let error = loadError(json, path: "bad.json")
        guard case .invalidFile(let path, let reason) = error else {
            Issue.record("expected invalidFile, got \(String(describing: error))")
            return
        }
        #expect(path == "bad.json")
        #expect(reason.hasPrefix(reasonPrefix), "\(reason)")
    }

    @Test func aFileThatCannotBeReadIsAnInvalidFile() {
        let url = ModelTestFiles.testsDirectory.appendingPathComponent("Fixtures/no-such.model.json")
        do {
            _ = try ObjectModel(contentsOf: url)
            Issue.record("a missing file loaded")
        } catch {
            guard case .invalidFile(let path, let reason) = error else {
                Issue.record("expected invalidFile, got \(error)")
                return
            }
            #expect(path == url.path)
            #expect(reason.hasPrefix("cannot be read"))
        }
    }
}
