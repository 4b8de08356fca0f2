import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore
import JSONCore

/// Each error the loader reports, from a file crafted to produce it, with its message.
@Suite struct LoadErrorTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var path: String { directory.file("store.json").path }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    func error(_ text: String) -> JSONStoreError? {
        StoreFiles.openError(text, model: model, in: directory) as? JSONStoreError
    }

    func document(_ objects: String) -> String { StoreFiles.document(model, objects: objects) }

    @Test func aValidCraftedFileLoads() throws {
        let text = document("{\"Item\":[\(StoreFiles.item(1)),\(StoreFiles.item(2, "\"twin\":3"))],\"Owner\":[]," +
                            "\"Dog\":[{\"ref\":3,\"version\":1,\"values\":{\"name\":\"Rex\"}}]}")
        #expect(StoreFiles.openError(text, model: model, in: directory) != nil)  // twin 3 is a Dog
        let valid = document("{\"Item\":[\(StoreFiles.item(1, "\"twin\":2")),\(StoreFiles.item(2, "\"twin\":1"))]}")
        #expect(StoreFiles.openError(valid, model: model, in: directory) == nil)
    }

    @Test func aSyntaxErrorNamesByteLineAndColumn() {
        let text = "{\"format\": \"graphcore-json-store\",\n\"formatVersion\": 1,\n  \"metadata\": {]\n}\n"
        let found = error(text)
        guard case .invalidJSON(_, let offset, let line, let column, let reason)? = found else {
            Issue.record("expected invalidJSON, got \(String(describing: found))")
            return
        }
        // yajl reports the place just after the token it could not take: the "]" at byte 70.
        #expect(line == 3)
        #expect(column == 17)
        #expect(offset == 71)
        #expect(reason == "invalid object key (must be a string)")
        #expect(found?.description == "\(path): invalid JSON at byte 71 (line 3, column 17): \(reason)")
    }

    @Test func aNULByteIsAnErrorNotTheEndOfTheInput() {
        let text = "{\"format\":\"graphcore-json-store\",\u{0}\"formatVersion\":1}"
        #expect(error(text) == .invalidJSON(file: path, offset: 33, line: 1, column: 34,
                                            reason: "a NUL byte is not allowed in JSON text"))
        let inString = "{\"format\":\"graph\u{0}\"}"
        #expect(error(inString)?.description.contains("NUL byte") == true)
    }

    @Test func commentsAreRefused() {
        let text = "{/* a comment */\"format\":\"graphcore-json-store\"}"
        guard case .invalidJSON(_, let offset, _, _, _)? = error(text) else {
            Issue.record("a comment was accepted")
            return
        }
        #expect(offset == 1)
    }

    @Test func trailingGarbageInvalidUTF8AndEmptyFilesAreRefused() {
        let valid = document("{}")
        #expect(error(valid) == nil)
        #expect(error(valid + "{}")?.description.contains("trailing garbage") == true)
        #expect(error(valid + "x")?.description.contains("invalid JSON") == true)
        var bytes = Array(document("{\"Item\":[\(StoreFiles.item(1, "\"note\":\"ab\"") )]}").utf8)
        if let index = bytes.firstIndex(of: UInt8(ascii: "b")) { bytes[index] = 0xC0 }  // overlong lead byte
        #expect(error(String(decoding: bytes, as: UTF8.self)) != nil)
        #expect(error("")?.description.contains("invalid JSON at byte 0") == true)
    }

    @Test func invalidUTF8ThatYajlLetsThroughIsReportedAtItsFirstBadByte() {
        let cases: [(bytes: [UInt8], offset: Int)] = [
            (Array(#"["ab"#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#"c"]"#.utf8), 4),   // past U+10FFFF
            (Array(#"{"k":"x"#.utf8) + [0xC0, 0xAF] + Array(#"yz"}"#.utf8), 7),          // overlong "/"
            (Array(#"[1,""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""]"#.utf8), 4),         // a surrogate
            (Array(#"{"a"#.utf8) + [0xE0, 0x80, 0xAF] + Array(#"":1}"#.utf8), 3),        // in a key
        ]
        for (bytes, expected) in cases {
            do {
                _ = try bytes.withUnsafeBytes { try JSONValue.parse($0) }
                Issue.record("\(bytes) was accepted")
            } catch let JSONError.invalidJSON(offset, line, column, reason) {
                #expect(offset == expected, "\(bytes): \(reason)")
                #expect(line == 1 && column == expected + 1)
                #expect(reason.contains("invalid UTF-8"))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func aFileOfAnotherFormatOrVersionIsRefused() {
        #expect(error("[1, 2]") == .notAStoreFile(file: path, reason: "the top-level value must be an object, found an array (at byte 1, line 1, column 2)"))
        #expect(error("{\"a\": 1}") == .notAStoreFile(file: path, reason: "there is no \"format\": \"graphcore-json-store\""))
        #expect(error(StoreFiles.document(model, format: "\"something-else\""))?.description
            == "\(path): not a store file: \"format\" is \"something-else\", expected \"graphcore-json-store\"")
        #expect(error(StoreFiles.document(model, version: "2"))?.description
            == "\(path): format version 2 is not supported (this program reads version 1)")
        #expect(error(StoreFiles.document(model, version: "\"1\"")) == .unsupportedFormatVersion(file: path, found: "\"1\""))
    }

    @Test func aFileForAnotherModelNamesTheEntitiesThatDiffer() {
        var hashes = model.entityVersionHashes
        hashes["Item"] = String(repeating: "0", count: 64)
        hashes["Track"] = String(repeating: "1", count: 64)
        hashes["Tag"] = nil
        #expect(error(StoreFiles.document(model, hashes: hashes))?.description
            == "\(path) was written for a different model: entities Item, Tag, Track differ")
        let withoutHashes = StoreFiles.document(model).replacingOccurrences(of: "\"entityVersionHashes\"", with: "\"hashes\"")
        #expect(error(withoutHashes) == .notAStoreFile(file: path, reason: "\"metadata\" has no \"entityVersionHashes\""))
    }

    @Test func anUnknownOrAbstractEntityIsNamed() {
        #expect(error(document("{\"Track\":[]}"))?.description == "\(path): unknown entity \"Track\" in \"objects\"")
        #expect(error(document("{\"Animal\":[]}")) == .abstractEntity(file: path, entity: "Animal"))
    }

    @Test func aValueOfTheWrongTypeNamesEntityReferenceAndProperty() {
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"count\":\"12\""))]}"))?.description
            == "\(path): Item 3, property \"count\": expected an int64 (JSON integer), found \"12\"")
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"small\":40000"))]}"))
            == .invalidValue(file: path, entity: "Item", reference: 3, property: "small",
                             expected: "an int16 (JSON integer from -32768 to 32767)", found: "40000"))
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"count\":1.5"))]}"))?.description.contains("found 1.5") == true)
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"large\":9223372036854775808"))]}")) != nil)
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"added\":\"2024-02-30T00:00:00.000Z\""))]}"))?.description
            .contains("expected a date (ISO 8601 string)") == true)
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"tags\":5"))]}"))?.description
            .contains("expected an array of references (positive integers), found 5") == true)
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"weight\":1e39"))]}")) != nil)
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"active\":1"))]}")) != nil)
    }

    @Test func unknownPropertiesAndMissingRequiredValuesAreNamed() {
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"colour\":\"red\""))]}"))?.description
            == "\(path): Item 3: \"colour\" is not a property of Item")
        #expect(error(document("{\"Item\":[{\"ref\":3,\"version\":1,\"values\":{\"count\":1}}]}"))?.description
            == "\(path): Item 3, property \"name\": a value is required")
        #expect(error(document("{\"Item\":[{\"ref\":3,\"version\":1,\"values\":{\"name\":null}}]}"))
            == .missingValue(file: path, entity: "Item", reference: 3, property: "name"))
        #expect(error(document("{\"Item\":[{\"version\":1,\"values\":{\"name\":\"x\"}}]}"))?.description
            == "\(path): Item (object without \"ref\"): has no \"ref\"")
    }

    @Test func aDuplicateReferenceIsNamed() {
        let text = document("{\"Item\":[\(StoreFiles.item(4))],\"Tag\":[{\"ref\":4,\"version\":1,\"values\":{\"label\":\"x\"}}]}")
        #expect(error(text)?.description == "\(path): Tag 4: reference 4 is used twice (also by Item 4)")
    }

    @Test func aDanglingOrMisdirectedReferenceIsNamed() {
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"owner\":99"))]}"))?.description
            == "\(path): Item 3, property \"owner\": no object has reference 99")
        let text = document("{\"Item\":[\(StoreFiles.item(3, "\"owner\":1"))],\"Tag\":[{\"ref\":1,\"version\":1,\"values\":{\"label\":\"x\"}}]}")
        #expect(error(text)?.description == "\(path): Item 3, property \"owner\": reference 1 is a Tag, expected an Owner")
    }

    @Test func sidesOfARelationshipThatDisagreeAreRefused() {
        // to-many side lists an item whose to-one points elsewhere.
        let owners = "\"Owner\":[{\"ref\":1,\"version\":1,\"values\":{\"name\":\"a\",\"items\":[3]}},"
            + "{\"ref\":2,\"version\":1,\"values\":{\"name\":\"b\",\"items\":[]}}]"
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"owner\":2"))],\(owners)}"))?.description
            == "\(path): Owner 1, property \"items\": lists Item 3, whose \"owner\" is 2")
        // to-one side points at an owner that does not list it.
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"owner\":2")),\(StoreFiles.item(4, "\"owner\":1"))],\(owners.replacingOccurrences(of: "[3]", with: "[4]"))}"))?.description
            == "\(path): Item 3, property \"owner\": refers to Owner 2, whose \"items\" does not list 3")
        // one-to-one
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"twin\":4")),\(StoreFiles.item(4))]}"))?.description
            == "\(path): Item 3, property \"twin\": refers to Item 4, whose \"twin\" is null")
        // many-to-many
        let tags = "\"Tag\":[{\"ref\":7,\"version\":1,\"values\":{\"label\":\"t\",\"items\":[]}}]"
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"tags\":[7]"))],\(tags)}"))?.description
            == "\(path): Item 3, property \"tags\": lists Tag 7, whose \"items\" does not list 3")
        let tagged = "\"Tag\":[{\"ref\":7,\"version\":1,\"values\":{\"label\":\"t\",\"items\":[3]}}]"
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3))],\(tagged)}"))?.description
            == "\(path): Tag 7, property \"items\": lists Item 3, whose \"tags\" does not list 7")
        // duplicates in a to-many list
        #expect(error(document("{\"Item\":[\(StoreFiles.item(3, "\"tags\":[7,7]"))],\(tagged)}"))?.description
            == "\(path): Item 3: property \"tags\" lists Tag 7 twice")
    }

    @Test func forwardReferencesObjectsBeforeMetadataAndUnknownKeysAreFine() throws {
        // "objects" before "metadata", unknown keys at the top and in metadata, refs pointing forward.
        let text = """
        {"objects":{"Item":[\(StoreFiles.item(1, "\"owner\":9,\"pet\":5"))],"Dog":[{"ref":5,"version":2,"values":{"name":"Rex","keepers":[1]}}],\
        "Owner":[{"ref":9,"version":1,"values":{"name":"Ann","items":[1]}}]},"future":{"x":[1,{"y":null}]},\
        "format":"graphcore-json-store","formatVersion":1,"metadata":{"extra":[true],"storeUUID":"\(StoreFiles.uuid)",\
        "entityVersionHashes":{\(model.entityVersionHashes.map { "\"\($0.key)\":\"\($0.value)\"" }.joined(separator: ","))},"nextReference":3}}
        """
        let url = directory.file("store.json")
        try Data(text.utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        #expect(open.store.identifier == StoreFiles.uuid)
        #expect(open.store.nextReference == 10)
        let context = open.context()
        let item = try #require(try context.fetch(FetchRequest(entityName: "Item")).first)
        #expect(item.objectID.storeIdentifier == StoreFiles.uuid)
        #expect(try item.object(forKey: "pet")?.get("name", as: String.self) == "Rex")
        #expect(try item.value(forKey: "count") == .int(7))
        #expect(try item.object(forKey: "owner")?.objectID.storeIdentifier == StoreFiles.uuid)
    }
}
