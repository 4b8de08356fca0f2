import Foundation
import GraphCore
import JSONCore
import Testing
@testable import JSONAtomicStore

/// Nothing but whitespace after the top-level value, and no key twice in one object: in
/// messages (``JSONValue``) and in store files, wherever the key is.
@Suite struct StrictJSONTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var path: String { directory.file("store.json").path }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    private func parse(_ text: String) throws -> JSONValue {
        try Data(text.utf8).withUnsafeBytes { try JSONValue.parse($0) }
    }

    /// The error ``JSONValue/parse(_:maximumDepth:)`` throws for `text`, if any.
    private func parseError(_ text: String) -> JSONError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error as? JSONError
        }
    }

    /// The byte offset just after the `occurrence`-th (from 1) `needle` in `text`.
    private func offset(after needle: String, occurrence: Int = 2, in text: String) -> Int? {
        let bytes = Array(text.utf8), pattern = Array(needle.utf8)
        var found = 0
        for start in 0...(bytes.count - pattern.count) where Array(bytes[start..<start + pattern.count]) == pattern {
            found += 1
            if found == occurrence { return start + pattern.count }
        }
        return nil
    }

    /// A message's duplicate key, as ``JSONValue`` reports it.
    private func duplicate(_ key: String, at offset: Int) -> JSONError {
        .invalidJSON(offset: offset, line: 1, column: offset + 1, reason: "the key \"\(key)\" appears twice in one object")
    }

    /// A store file's duplicate key, as the store reports it (with the file).
    private func duplicate(_ key: String, file: String, at offset: Int) -> JSONStoreError {
        .invalidJSON(file: file, offset: offset, line: 1, column: offset + 1,
                     reason: "the key \"\(key)\" appears twice in one object")
    }

    // MARK: - After the value

    @Test("a string left open after a request is refused, at its first byte, like any other trailing text")
    func unterminatedStringAfterTheValueIsRefused() {
        let request = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
        let end = request.utf8.count
        for trailing in ["\"abc", "\"", "  \"abc\\\"", "\n\"x"] {
            let error = parseError(request + trailing)
            guard case .invalidJSON(let offset, _, _, let reason)? = error else {
                Issue.record("\(trailing.debugDescription) was accepted or gave \(String(describing: error))")
                continue
            }
            #expect(offset == end + trailing.utf8.prefix { $0 != UInt8(ascii: "\"") }.count)
            #expect(reason == "unexpected text after the JSON value")
        }
        #expect(parseError(request + "x") != nil)
        #expect(parseError(request + " \r\n\t") == nil)
        #expect(parseError("1 \"a") != nil)
        #expect(parseError("\"a\" \"b") != nil)
    }

    @Test("text after the value is refused when it arrives in a later chunk")
    func trailingTextInALaterChunkIsRefused() throws {
        let parser = JSONEventParser(handler: JSONSyntaxChecker())
        try Data("{\"a\":[1]}  ".utf8).withUnsafeBytes { try parser.parse($0) }
        #expect(throws: JSONError.invalidJSON(offset: 12, line: 1, column: 13,
                                                   reason: "unexpected text after the JSON value")) {
            try Data(" \"abc".utf8).withUnsafeBytes { try parser.parse($0) }
            try parser.finish()
        }
    }

    @Test("a store file with an open string after its closing brace is refused")
    func storeFileWithTrailingStringIsRefused() {
        let text = StoreFiles.document(model)
        let error = StoreFiles.openError(text + "\"abc", model: model, in: directory) as? JSONStoreError
        let end = text.utf8.count
        #expect(error == .invalidJSON(file: path, offset: end, line: text.split(separator: "\n", omittingEmptySubsequences: false).count,
                                      column: 1, reason: "unexpected text after the JSON value"))
    }

    // MARK: - Duplicate keys in messages

    @Test("a request with \"method\" twice is refused at the second, not run with the last")
    func duplicateMethodIsRefused() {
        let text = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"model\",\"method\":\"ping\"}"
        #expect(parseError(text) == duplicate("method", at: offset(after: "\"method\"", in: text) ?? -1))
    }

    @Test("duplicate keys are found in nested objects, in large objects, and through escapes")
    func duplicatesAnywhereInAMessage() {
        #expect(parseError("{\"params\":{\"a\":1,\"b\":2,\"a\":3}}") == duplicate("a", at: 26))
        let many = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let large = "{\(many),\"k39\":0}"
        #expect(parseError(large) == duplicate("k39", at: offset(after: "\"k39\"", in: large) ?? -1))
        #expect(parseError("{\(many)}") == nil)
        #expect(parseError("{\"a\":1,\"\\u0061\":2}") == duplicate("a", at: 15))
        #expect(parseError("[{\"a\":1},{\"a\":2}]") == nil)
        #expect(parseError("{\"a\":{\"a\":{\"a\":1}}}") == nil)
    }

    // MARK: - Duplicate keys in store files

    /// The store file with `original` (which must occur in it) replaced by `replacement`.
    private func document(replacing original: String, with replacement: String, objects: String = "{}") -> String {
        let text = StoreFiles.document(model, objects: objects)
        #expect(text.contains(original), "\(original) is not in the document")
        return text.replacingOccurrences(of: original, with: replacement)
    }

    private func expectDuplicate(_ key: String, in text: String, needle: String? = nil,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        let error = StoreFiles.openError(text, model: model, in: directory) as? JSONStoreError
        // The place is just after the key; a needle may go on past it, to pick the right occurrence.
        let quoted = "\"\(key)\""
        let place = (offset(after: needle ?? quoted, in: text) ?? -1) - ((needle ?? quoted).utf8.count - quoted.utf8.count)
        #expect(error == duplicate(key, file: path, at: place), sourceLocation: sourceLocation)
    }

    @Test("every top-level key given twice is refused with its name and place")
    func duplicateTopLevelKeys() {
        expectDuplicate("format", in: document(replacing: "{\"format\":", with: "{\"format\":\"graphcore-json-store\",\"format\":"))
        expectDuplicate("formatVersion", in: document(replacing: "\"formatVersion\":1,", with: "\"formatVersion\":1,\"formatVersion\":1,"))
        expectDuplicate("metadata", in: document(replacing: "\"objects\":{}", with: "\"metadata\":{},\"objects\":{}"))
        expectDuplicate("objects", in: document(replacing: "\"objects\":{}", with: "\"objects\":{},\"objects\":{}"))
        expectDuplicate("extra", in: document(replacing: "\"objects\":{}", with: "\"extra\":1,\"extra\":2,\"objects\":{}"))
    }

    @Test("every metadata key given twice is refused with its name and place")
    func duplicateMetadataKeys() {
        let uuid = "\"storeUUID\":\"\(StoreFiles.uuid)\","
        expectDuplicate("storeUUID", in: document(replacing: uuid, with: uuid + uuid))
        expectDuplicate("storeType", in: document(replacing: "\"storeType\":\"JSON\",", with: "\"storeType\":\"JSON\",\"storeType\":\"JSON\","))
        expectDuplicate("nextReference", in: document(replacing: "\"nextReference\":1,", with: "\"nextReference\":1,\"nextReference\":5,"))
        expectDuplicate("entityVersionHashes", in: document(replacing: "\"nextReference\":1,",
                                                            with: "\"nextReference\":1,\"entityVersionHashes\":{},"))
        expectDuplicate("userInfo", in: document(replacing: "\"userInfo\":{}", with: "\"userInfo\":{},\"userInfo\":{}"))
        expectDuplicate("modelVersionHash", in: document(replacing: "\"nextReference\":1,",
                                                         with: "\"nextReference\":1,\"modelVersionHash\":\"x\","))
        expectDuplicate("note", in: document(replacing: "\"userInfo\":{}", with: "\"userInfo\":{},\"note\":1,\"note\":2"))
    }

    @Test("a key twice in entityVersionHashes, in userInfo or in a skipped value is refused")
    func duplicateKeysInMaps() {
        expectDuplicate("Item", in: document(replacing: "\"entityVersionHashes\":{", with: "\"entityVersionHashes\":{\"Item\":\"x\","),
                        needle: "\"Item\":")
        expectDuplicate("who", in: document(replacing: "\"userInfo\":{}", with: "\"userInfo\":{\"who\":\"a\",\"who\":\"b\"}"))
        expectDuplicate("b", in: document(replacing: "\"objects\":{}", with: "\"future\":[{\"a\":{\"b\":1,\"b\":2}}],\"objects\":{}"))
        #expect(StoreFiles.openError(document(replacing: "\"objects\":{}", with: "\"future\":[{\"a\":1},{\"a\":2}],\"objects\":{}"),
                                     model: model, in: directory) == nil)
    }

    @Test("ref, version, values, a property and an entity given twice are refused with their name and place")
    func duplicateObjectKeys() {
        let twoRefs = "{\"Item\":[{\"ref\":1,\"ref\":2,\"version\":1,\"values\":{\"name\":\"a\"}}]}"
        expectDuplicate("ref", in: StoreFiles.document(model, objects: twoRefs))
        let twoVersions = "{\"Item\":[{\"ref\":1,\"version\":1,\"version\":2,\"values\":{\"name\":\"a\"}}]}"
        expectDuplicate("version", in: StoreFiles.document(model, objects: twoVersions))
        let twoValues = "{\"Item\":[{\"ref\":1,\"version\":1,\"values\":{\"name\":\"a\"},\"values\":{\"name\":\"b\"}}]}"
        expectDuplicate("values", in: StoreFiles.document(model, objects: twoValues))
        let twoNames = "{\"Item\":[{\"ref\":1,\"version\":1,\"values\":{\"name\":\"a\",\"name\":\"b\"}}]}"
        expectDuplicate("name", in: StoreFiles.document(model, objects: twoNames))
        let twoLists = "{\"Item\":[\(StoreFiles.item(1))],\"Item\":[]}"
        expectDuplicate("Item", in: StoreFiles.document(model, objects: twoLists), needle: "\"Item\":[")
        // The same keys in different objects are fine.
        #expect(StoreFiles.openError(StoreFiles.document(model, objects: "{\"Item\":[\(StoreFiles.item(1)),\(StoreFiles.item(2))]}"),
                                     model: model, in: directory) == nil)
    }

    @Test("a duplicate key in a file large enough to be parsed in ranges is reported the same way")
    func duplicateInALargeFile() throws {
        let items = (1...80_000).map { StoreFiles.item($0) }.joined(separator: ",")
        let last = "{\"ref\":80001,\"version\":1,\"ref\":80002,\"values\":{\"name\":\"z\"}}"
        let text = StoreFiles.document(model, objects: "{\"Item\":[\(items),\(last)]}")
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        let error = StoreFiles.openError(text, model: model, in: directory) as? JSONStoreError
        let place = offset(after: "\"ref\"", occurrence: 80_002, in: text) ?? -1
        #expect(error == .invalidJSON(file: path, offset: place, line: 1, column: place + 1,
                                      reason: "the key \"ref\" appears twice in one object"))
    }
}
