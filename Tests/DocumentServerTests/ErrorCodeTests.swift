import Foundation
import ServerTestSupport
import Testing

/// Every error code of docs/PROTOCOL.md. After each error the connection still answers and the
/// store file is byte for byte what it was.
@Suite struct ErrorCodeTests {
    /// A server holding the sample data, one connection, and the store file as it was.
    final class Scene {
        let directory: TemporaryDirectory
        let server: ServerProcess
        let client: LineClient
        let data: SampleData
        let storeUUID: String
        let fileBefore: Data?

        init(arguments: [String] = []) throws {
            directory = try TemporaryDirectory()
            server = try ServerProcess(in: directory, arguments: arguments)
            client = try server.connect()
            data = try SampleData.insert(through: client)
            storeUUID = try client.result("hello")["storeUUID"].string ?? ""
            fileBefore = fileBytes(server.storeURL)
        }

        /// Sends raw bytes plus `\n` and parses the answer line.
        func send(_ bytes: [UInt8]) throws -> JSON {
            try client.send(bytes + [UInt8(ascii: "\n")])
            return try JSON(parsing: client.readLine())
        }

        /// The connection still answers, nothing changed, and the server stops cleanly.
        func expectIntactAndStop(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try client.exchange(#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#)
                    == #"{"jsonrpc":"2.0","id":"after","result":"pong"}"#, sourceLocation: sourceLocation)
            #expect(try client.result("fetch", ["entity": "Song", "resultType": "count"])["count"].int == 6, sourceLocation: sourceLocation)
            #expect(fileBytes(server.storeURL) == fileBefore, "the store file changed", sourceLocation: sourceLocation)
            #expect(try server.stop() == 0, sourceLocation: sourceLocation)
        }
    }

    /// Lines that are not JSON, and the offset of the first byte that makes them so.
    static let notJSON: [(line: [UInt8], offset: Int)] = [
        (Array(#"{"jsonrpc":"2.0","id":8,"method":"ping""#.utf8), 39),   // ends early: the offset is the end
        (Array(#"[1,2,x]"#.utf8), 5),
        (Array(#"{"jsonrpc":"2.0",,"id":1}"#.utf8), 17),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"ping"}}"#.utf8), 40),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"p"#.utf8) + [0xFF] + Array(#"ing"}"#.utf8), 35),   // not UTF-8
        ([0xC3, 0x28], 0),   // not UTF-8, not JSON
        // A lead byte of three not followed by continuation bytes, after a two-byte character.
        (Array(#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"é"#.utf8) + [0xE9] + Array(#""}}"#.utf8), 57),
    ]

    @Test(arguments: 0..<notJSON.count)
    func aLineThatIsNotJSONOrNotUTF8IsAParseErrorSayingWhere(index: Int) throws {
        let scene = try Scene()
        let (line, offset) = Self.notJSON[index]
        let response = try scene.send(line)
        #expect(response["id"].isNull)
        #expect(response["error"]["code"].int == -32700)
        #expect(response["error"]["message"].string?.isEmpty == false)
        let data = response["error"]["data"]
        // Where reading stopped: at the first byte that makes the line invalid, or at most
        // a character (up to 3 more bytes) past it, as PROTOCOL.md says.
        let reported = try #require(data["offset"].int, "\(data)")
        #expect((offset...min(offset + 3, line.count)).contains(reported), "\(String(decoding: line, as: UTF8.self).debugDescription): \(data)")
        #expect(data["line"].int == 1)
        #expect(data["column"].int == reported + 1, "\(data)")
        #expect(data["reason"].string?.isEmpty == false)
        try scene.expectIntactAndStop()
    }

    @Test func jsonNestedDeeperThan128LevelsIsAParseErrorWithAReason() throws {
        let scene = try Scene()
        let deep = try scene.send(Array((String(repeating: "[", count: 129) + String(repeating: "]", count: 129)).utf8))
        #expect(deep["error"]["code"].int == -32700)
        #expect(deep["error"]["data"]["reason"].string?.isEmpty == false)
        // 128 levels are fine JSON: a batch whose one element is not a request.
        let deepest = try scene.send(Array((String(repeating: "[", count: 128) + String(repeating: "]", count: 128)).utf8))
        #expect(deepest.count == 1)
        #expect(deepest[0]["error"]["code"].int == -32600, "\(deepest)")
        try scene.expectIntactAndStop()
    }

    /// Lines that are JSON but not requests, and the `id` the answer carries (JSON text).
    static let notRequests: [(line: String, id: String)] = [
        ("42", "null"),
        (#""ping""#, "null"),
        ("null", "null"),
        (#"{"id":1,"method":"ping"}"#, "1"),
        (#"{"jsonrpc":"1.0","id":2,"method":"ping"}"#, "2"),
        (#"{"jsonrpc":2.0,"id":3,"method":"ping"}"#, "3"),
        (#"{"jsonrpc":"2.0","id":4,"method":5}"#, "4"),
        (#"{"jsonrpc":"2.0","id":"five"}"#, #""five""#),
        (#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":[6],"method":"ping"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, "null"),
        (#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[]}"#, "7"),
        (#"{"jsonrpc":"2.0","id":8,"method":"ping","params":"x"}"#, "8"),
        (#"{"jsonrpc":"2.0","id":9,"method":"ping","param":{}}"#, "9"),
        ("[]", "null"),
    ]

    @Test(arguments: 0..<notRequests.count)
    func jsonThatIsNotARequestIsAnInvalidRequest(index: Int) throws {
        let scene = try Scene()
        let (line, id) = Self.notRequests[index]
        let text = try scene.client.exchange(line)
        let response = try JSON(parsing: text)
        #expect(text.hasPrefix(#"{"jsonrpc":"2.0","id":\#(id),"error":{"code":-32600,"message":"#), "\(line) → \(text)")
        #expect(response["error"]["data"]["reason"].string?.isEmpty == false)
        try scene.expectIntactAndStop()
    }

    @Test func anUnknownMethodIsMethodNotFoundNamingItAtMost128Characters() throws {
        let scene = try Scene()
        let response = try scene.client.call("fetchAll", ["entity": "Song"])
        #expect(response["error"]["code"].int == -32601)
        #expect(response["error"]["data"] == JSON(["method": "fetchAll"]))
        let long = String(repeating: "m", count: 300)
        let capped = try scene.client.call(long)
        #expect(capped["error"]["code"].int == -32601)
        let echoed = try #require(capped["error"]["data"]["method"].string)
        #expect(echoed.count <= 128 && echoed.count >= 64, "\(echoed.count) characters: \(echoed)")
        #expect(long.hasPrefix(echoed), "not a part of the method sent: \(echoed)")
        #expect(try scene.client.call("Ping")["error"]["code"].int == -32601, "method names are case-sensitive")
        try scene.expectIntactAndStop()
    }

    /// Bad parameters, and the `path` the error names.
    static let badParams: [(method: String, params: String, path: String)] = [
        ("fetch", #"{}"#, "params.entity"),
        ("fetch", #"{"entity":"Nope"}"#, "params.entity"),
        ("fetch", #"{"entity":7}"#, "params.entity"),
        ("fetch", #"{"entity":"Song","sort":[{"key":"nope"}]}"#, "params.sort[0].key"),
        ("fetch", #"{"entity":"Song","sort":[{"key":"title"},{"key":"plays","ascending":"no"}]}"#, "params.sort[1].ascending"),
        ("fetch", #"{"entity":"Song","limit":-1}"#, "params.limit"),
        ("fetch", #"{"entity":"Song","offset":"2"}"#, "params.offset"),
        ("fetch", #"{"entity":"Song","resultType":"rows"}"#, "params.resultType"),
        ("fetch", #"{"entity":"Song","colour":1}"#, "params.colour"),
        ("fetch", #"{"entity":"Song","predicate":"nope == 1"}"#, "params.predicate"),
        ("get", #"{}"#, "params.ids"),
        ("get", #"{"ids":["nope"]}"#, "params.ids[0]"),
        ("get", #"{"ids":["graph://6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A/Nope/1"]}"#, "params.ids[0]"),
        ("save", #"{"insert":[{"id":"x","entity":"Nope","values":{}}]}"#, "params.insert[0].entity"),
        ("save", #"{"insert":[{"id":"x","entity":"Song","values":{"title":"t","plays":"many"}}]}"#, "params.insert[0].values.plays"),
        ("save", #"{"insert":[{"id":"x","entity":"Song","values":{"title":"t","colour":"red"}}]}"#, "params.insert[0].values.colour"),
        ("save", #"{"update":[{"id":"graph://6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A/Song/3","values":{}}]}"#, "params.update[0].version"),
        ("save", #"{"insert":[{"id":"a","entity":"Tag","values":{"label":"1"}},{"id":"a","entity":"Tag","values":{"label":"2"}}]}"#, "params.insert[1].id"),
        ("save", #"{"insert":[{"id":"graph://x","entity":"Tag","values":{"label":"1"}}]}"#, "params.insert[0].id"),
        ("save", #"{"insert":[{"id":"t","entity":"Tag","values":{"label":"1","songs":["nope"]}}]}"#, "params.insert[0].values.songs[0]"),
        ("save", #"{"insert":[{"id":"t","entity":"Song","values":{"title":"1","rating":1e400}}]}"#, "params.insert[0].values.rating"),
        ("save", #"{"delete":[{"id":"graph://6B3A0C2E-5D1F-4E8A-9C7B-1F2E3D4C5B6A/Song/3","version":"1"}]}"#, "params.delete[0].version"),
    ]

    @Test(arguments: 0..<badParams.count)
    func aBadParameterIsInvalidParamsWithItsPath(index: Int) throws {
        let scene = try Scene()
        let (method, params, path) = Self.badParams[index]
        let response = try scene.client.request(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#)
        #expect(response["id"].int == 1)
        #expect(response["error"]["code"].int == -32602, "\(method) \(params) → \(response)")
        #expect(response["error"]["data"]["path"].string == path, "\(method) \(params) → \(response)")
        #expect(response["error"]["data"]["reason"].string?.isEmpty == false)
        try scene.expectIntactAndStop()
    }

    @Test func aPredicateThatDoesNotParseIsInvalidParamsWithItsPosition() throws {
        let scene = try Scene()
        let response = try scene.client.call("fetch", ["entity": "Song", "predicate": "title ==== 1"])
        #expect(response["error"]["code"].int == -32602)
        #expect(response["error"]["data"]["path"].string == "params.predicate")
        #expect(response["error"]["data"]["position"].int == 8)
        let missing = try scene.client.call("fetch", ["entity": "Song", "predicate": "plays > %d", "arguments": [Any]()])
        #expect(missing["error"]["code"].int == -32602)
        #expect(missing["error"]["data"]["position"].int == 8)
        try scene.expectIntactAndStop()
    }

    @Test func aStaleVersionIsAConflictListingExpectedAndCurrentVersions() throws {
        let scene = try Scene()
        let song = scene.data["s1"], album = scene.data["b2"]
        // s1 is at version 1; b2 too.
        let response = try scene.client.call("save", ["update": [
            ["id": song, "version": 3, "values": ["plays": 1]],
            ["id": album, "version": 1, "values": ["title": "Sunday"]],
        ]])
        #expect(response["error"]["code"].int == -32001)
        #expect(response["error"]["data"] == JSON(["conflicts": [["id": song, "expected": 3, "current": 1]]]))
        let get = try scene.client.result("get", ["ids": [album]])
        #expect(get["objects"][0]["values"]["title"].string == "Sunday at the Village Vanguard", "a failed save changes nothing")
        try scene.expectIntactAndStop()
    }

    @Test func anUpdateOfADeletedObjectIsAConflictWithCurrentNull() throws {
        let scene = try Scene()
        let gone = "graph://\(scene.storeUUID)/Song/9999"
        let response = try scene.client.call("save", ["update": [["id": gone, "version": 1, "values": ["plays": 1]]]])
        #expect(response["error"]["code"].int == -32001)
        #expect(response["error"]["data"] == JSON(["conflicts": [["id": gone, "expected": 1, "current": NSNull()]]]))
        let delete = try scene.client.call("save", ["delete": [["id": gone, "version": 2]]])
        #expect(delete["error"]["data"] == JSON(["conflicts": [["id": gone, "expected": 2, "current": NSNull()]]]))
        try scene.expectIntactAndStop()
    }

    @Test func breakingTheModelsRulesIsAValidationErrorNamingTheTemporaryID() throws {
        let scene = try Scene()
        let response = try scene.client.call("save", ["insert": [
            ["id": "ok", "entity": "Tag", "values": ["label": "modal"]],
            ["id": "untitled", "entity": "Song", "values": ["plays": 2]],
        ]])
        #expect(response["error"]["code"].int == -32002)
        let failures = try #require(response["error"]["data"]["failures"].array)
        #expect(failures.count == 1)
        #expect(failures.first?["id"].string == "untitled")
        #expect(failures.first?["entity"].string == "Song")
        #expect(failures.first?["key"].string == "title")
        #expect(try scene.client.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 0, "all or nothing")
        try scene.expectIntactAndStop()
    }

    @Test func aRelationshipToAnObjectThatDoesNotExistIsNotFound() throws {
        let scene = try Scene()
        let nowhere = "graph://\(scene.storeUUID)/Album/777"
        let response = try scene.client.call("save", ["insert": [["id": "x", "entity": "Song", "values": ["title": "Lost", "album": nowhere]]]])
        #expect(response["error"]["code"].int == -32003)
        #expect(response["error"]["data"] == JSON(["ids": [nowhere]]))
        let update = try scene.client.call("save", ["update": [["id": scene.data["s1"], "version": 1, "values": ["album": nowhere]]]])
        #expect(update["error"]["code"].int == -32003)
        try scene.expectIntactAndStop()
    }
}
