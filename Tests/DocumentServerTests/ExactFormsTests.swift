import Foundation
import ServerTestSupport
import Testing

/// The claims of `docs/PROTOCOL.md`, "Exact forms", against the real server: the places where
/// a client written from the document alone could otherwise guess.
@Suite struct ExactFormsTests {
    static let model = #"""
        {"entities":[
          {"name":"Song","attributes":[{"name":"title","type":"string"},{"name":"plays","type":"int64"},
                                       {"name":"rating","type":"double","optional":true},
                                       {"name":"code","type":"int32"}],
           "fetchIndexes":[{"name":"byCodePlays","elements":[{"property":"code"},{"property":"plays"}]},
                           {"name":"byTitle","elements":[{"property":"title","caseInsensitive":true}]}]}
        ]}
        """#

    private static func server(_ directory: TemporaryDirectory) throws -> ServerProcess {
        let modelURL = directory.file("model.json")
        try Data(model.utf8).write(to: modelURL)
        return try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
    }

    @Test func integerParametersRefuseFractionsAndExponents() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        let refused = [
            #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":1.0}}"#: "params.limit",
            #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","offset":1e2}}"#: "params.offset",
            #"{"jsonrpc":"2.0","id":1,"method":"changes","params":{"since":0.0}}"#: "params.since",
            #"{"jsonrpc":"2.0","id":1,"method":"changes","params":{"since":0,"limit":1.5}}"#: "params.limit",
            #"{"jsonrpc":"2.0","id":1,"method":"unsubscribe","params":{"subscription":1.0}}"#: "params.subscription",
            #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":9223372036854775808}}"#: "params.limit",
            #"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"a","entity":"Song","values":{"title":"x","plays":5.0,"code":1}}]}}"#:
                "params.insert[0].values.plays",
        ]
        for (line, path) in refused {
            let answer = try client.request(line)
            #expect(answer["error"]["code"].int == -32602, "\(line): \(answer)")
            #expect(answer["error"]["data"]["path"].string == path, "\(line): \(answer)")
        }
        let zero = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","limit":-0,"resultType":"count"}}"#)
        #expect(zero["result"]["count"].int == 0, "-0 reads as 0: \(zero)")
        let double = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"a","entity":"Song","values":{"title":"x","plays":5,"code":1,"rating":5}}]}}"#)
        #expect(double["result"]["seq"].int == 1, "a double takes a JSON integer: \(double)")
        try server.stop()
    }

    @Test func theIDComesBackAsItsTextAndInvalidRequestsAreAnsweredWithoutOne() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        for id in ["1.50", "1e2", "12345678901234567890", "-0", "\"x\""] {
            let answer = try client.exchange(#"{"jsonrpc":"2.0","id":\#(id),"method":"ping"}"#)
            #expect(answer == #"{"jsonrpc":"2.0","id":\#(id),"result":"pong"}"#)
        }
        let notification = try client.exchange(#"{"jsonrpc":"1.0","method":"ping"}"#)
        #expect(notification.hasPrefix(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600"#), "\(notification)")
        let nullParams = try client.exchange(#"{"jsonrpc":"2.0","id":3,"method":"ping","params":null}"#)
        #expect(nullParams.hasPrefix(#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600"#), "\(nullParams)")
        let wrongCase = try client.request(#"{"jsonrpc":"2.0","id":4,"method":"Ping"}"#)
        #expect(wrongCase["error"]["code"].int == -32601)
        let unknown = try client.request(#"{"jsonrpc":"2.0","id":5,"method":"fetch","params":{"entity":"Song","limt":1}}"#)
        #expect(unknown["error"]["data"]["path"].string == "params.limt", "\(unknown)")
        let nullOptional = try client.request(#"{"jsonrpc":"2.0","id":6,"method":"fetch","params":{"entity":"Song","predicate":null,"limit":null,"resultType":"count"}}"#)
        #expect(nullOptional["result"]["count"].int == 0, "\(nullOptional)")
        let nullRequired = try client.request(#"{"jsonrpc":"2.0","id":7,"method":"fetch","params":{"entity":null}}"#)
        #expect(nullRequired["error"]["data"]["reason"].string == "must be a string, not null", "\(nullRequired)")
        try server.stop()
    }

    @Test func theOuterObjectIsLevelOneOf128() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        // The request is level 1, params 2, arguments 3: 125 more arrays inside make 128.
        func line(arrays: Int) -> String {
            let nested = String(repeating: "[", count: arrays) + "1" + String(repeating: "]", count: arrays)
            return #"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","predicate":"plays IN %@","arguments":[\#(nested)]}}"#
        }
        let deepest = try client.request(line(arrays: 125))
        #expect(deepest["error"]["code"].int != -32700, "128 levels are read: \(deepest)")
        let tooDeep = try client.exchange(line(arrays: 126))
        #expect(tooDeep.hasPrefix(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"invalid JSON: arrays and objects nest deeper than 128 levels (at byte "#), "\(tooDeep)")
        #expect(tooDeep.hasSuffix(#")"}}}"#) && tooDeep.contains(#""data":{"reason":"arrays and objects nest deeper than 128 levels (at byte "#), "\(tooDeep)")
        try server.stop()
    }

    @Test func aRefusedSubscribeTakesNoNumber() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        #expect(try client.result("subscribe", ["entity": "Song"])["subscription"].int == 1)
        let refused = try client.call("subscribe", ["entity": "Nope"])
        #expect(refused["error"]["code"].int == -32602)
        let past = try client.call("subscribe", ["since": 99])
        #expect(past["error"]["code"].int == -32602)
        #expect(try client.result("subscribe", ["entity": "Song"])["subscription"].int == 2)
        try server.stop()
    }

    @Test func explainWritesTheDocumentedForms() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        _ = try client.result("save", ["insert": (0..<5).map { n in
            ["id": "s\(n)", "entity": "Song", "values": ["title": "T\(n)", "plays": n, "code": n % 2]] as [String: Any]
        }])
        func plan(_ params: [String: Any]) throws -> JSON {
            try client.result("fetch", params.merging(["entity": "Song", "explain": true, "resultType": "ids"]) { a, _ in a })["plan"]
        }
        let compound = try plan(["predicate": "code == 1 AND plays > 0"])
        #expect(compound["key"].string == "code, plays" && compound["operation"].string == "==, >", "\(compound)")
        #expect(compound["text"].string == "index byCodePlays on code, plays (==, >), examined 2 objects", "\(compound)")
        let ordered = try plan(["predicate": "code == 0", "sort": [["key": "plays"]], "limit": 1])
        #expect(ordered["operation"].string == "==, ORDER BY", "\(ordered)")
        #expect(ordered["text"].string == "index byCodePlays on code, plays (==, ORDER BY), sorted by the index, examined 1 object", "\(ordered)")
        let folded = try plan(["predicate": "title ==[c] 't1'"])
        #expect(folded["operation"].string == "==[c]", "\(folded)")
        let scan = try plan(["predicate": "rating == nil"])
        #expect(scan["access"].string == "scan" && scan["index"].isMissing, "\(scan)")
        #expect(scan["text"].string == "scan, examined 5 objects", "\(scan)")
        try server.stop()
    }

    @Test func getAnswersEmptyAndRepeatedIDsInPlace() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        let empty = try client.exchange(#"{"jsonrpc":"2.0","id":1,"method":"get","params":{"ids":[]}}"#)
        #expect(empty == #"{"jsonrpc":"2.0","id":1,"result":{"objects":[],"missing":[]}}"#)
        let id = try client.result("save", ["insert": [["id": "a", "entity": "Song", "values": ["title": "x", "plays": 1, "code": 1]]]])["ids"]["a"].string ?? ""
        let gone = id.replacingOccurrences(of: "/Song/1", with: "/Song/99")
        let twice = try client.result("get", ["ids": [id, id, gone, gone]])
        #expect(twice["objects"][0]["id"].string == id && twice["objects"][1]["id"].string == id, "\(twice)")
        #expect(twice["missing"].strings == [gone, gone], "\(twice)")
        try server.stop()
    }

    @Test func nilSortsFirstAscendingAndLastDescending() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(directory)
        let client = try server.connect()
        _ = try client.result("save", ["insert": [
            ["id": "a", "entity": "Song", "values": ["title": "a", "plays": 1, "code": 1, "rating": 2.0]],
            ["id": "b", "entity": "Song", "values": ["title": "B", "plays": 1, "code": 1]],
            ["id": "c", "entity": "Song", "values": ["title": "c", "plays": 1, "code": 1, "rating": 1.0]],
        ]])
        func titles(_ sort: [[String: Any]]) throws -> [String] {
            (try client.result("fetch", ["entity": "Song", "sort": sort])["objects"].array ?? []).map { $0["values"]["title"].string ?? "?" }
        }
        #expect(try titles([["key": "rating"]]) == ["B", "c", "a"])
        #expect(try titles([["key": "rating", "ascending": false]]) == ["a", "c", "B"])
        #expect(try titles([["key": "title"]]) == ["B", "a", "c"])
        #expect(try titles([["key": "title", "caseInsensitive": true]]) == ["a", "B", "c"])
        #expect(try titles([]) == ["a", "B", "c"])
        try server.stop()
    }

    @Test func eachSubcommandExitsWithTheDocumentedStatus() throws {
        let directory = try TemporaryDirectory()
        #expect(try runDocServer(["check", "--store", directory.file("none.json").path]).status == 2)
        #expect(try runDocServer(["check", "--nope"]).status == 64)
        #expect(try runDocServer(["serve", "--idle-timeout", "1.5"]).status == 64)
        #expect(try runDocServer(["serve", "--model", directory.file("none.model.json").path,
                                  "--store", directory.file("s.json").path, "--port", "0"]).status == 2)
        #expect(try runDocServer(["ping", "--port", String(try unusedPort()), "--timeout", "2"]).status == 1)
        #expect(try runDocServer(["compact", "--store", directory.file("none.json").path]).status == 2)
        #expect(try runDocServer(["check", "--help"]).status == 0)
    }
}
