import Foundation
import ServerTestSupport
import Testing

/// The answers `docs/PROTOCOL.md` (Edge cases) promises where JSON-RPC and the method
/// descriptions leave room, against the real server.
@Suite struct EdgeCaseTests {
    /// Starts a server on the sample model in a new directory.
    static func sample() throws -> (ServerProcess, LineClient, SampleData) {
        let server = try ServerProcess(in: try TemporaryDirectory())
        let client = try server.connect()
        return (server, client, try SampleData.insert(through: client))
    }

    @Test func nullForARequiredAttributeIsAValidationErrorLikeAMissingOne() throws {
        let (server, client, data) = try Self.sample()
        let missing = try client.call("save", ["insert": [["id": "t", "entity": "Tag", "values": [:] as [String: Any]]]])
        let null = try client.call("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": NSNull()]]]])
        for answer in [missing, null] {
            #expect(answer["error"]["code"].int == -32002, "\(answer)")
            #expect(answer["error"]["data"]["failures"][0]["id"].string == "t")
            #expect(answer["error"]["data"]["failures"][0]["key"].string == "label")
        }
        #expect(missing["error"]["data"] == null["error"]["data"])
        let song = try client.result("get", ["ids": [data["s1"]]])["objects"][0]
        let update = try client.call("save", ["update": [["id": data["s1"], "version": song["version"].int ?? 0, "values": ["title": NSNull()]]]])
        #expect(update["error"]["code"].int == -32002, "\(update)")
        #expect(update["error"]["data"]["failures"][0]["key"].string == "title")
        try server.stop()
    }

    @Test func everyPredicateErrorNamesThePredicateAndWhereInItTheFaultIs() throws {
        let (server, client, _) = try Self.sample()
        let cases: [(predicate: String, position: Int)] = [
            ("title == ", 9),                  // syntax
            ("plays > 3 AND colour == 'red'", 14),  // unknown key
            ("album.nme == 'x'", 6),           // unknown key on a key path
        ]
        for (predicate, position) in cases {
            let answer = try client.call("fetch", ["entity": "Song", "predicate": predicate])
            #expect(answer["error"]["code"].int == -32602, "\(predicate): \(answer)")
            #expect(answer["error"]["data"]["path"].string == "params.predicate", "\(predicate): \(answer)")
            #expect(answer["error"]["data"]["position"].int == position, "\(predicate): \(answer)")
        }
        try server.stop()
    }

    @Test func aValueOfTheWrongTypeIsInvalidParamsInASaveAndInAPredicate() throws {
        let (server, client, _) = try Self.sample()
        let save = try client.call("save", ["insert": [["id": "s", "entity": "Song", "values": ["title": "x", "plays": "many"]]]])
        #expect(save["error"]["code"].int == -32602)
        #expect(save["error"]["data"]["path"].string == "params.insert[0].values.plays")
        let fetch = try client.call("fetch", ["entity": "Song", "predicate": "plays > %@", "arguments": ["many"]])
        #expect(fetch["error"]["code"].int == -32602, "\(fetch)")
        #expect(fetch["error"]["data"]["path"].string == "params.predicate", "\(fetch)")
        try server.stop()
    }

    @Test func aCountHonoursLimitAndOffsetAsTheObjectsWould() throws {
        let (server, client, _) = try Self.sample()
        for (limit, offset, expected) in [(0, 0, 6), (4, 0, 4), (4, 3, 3), (0, 5, 1), (2, 10, 0)] {
            let count = try client.result("fetch", ["entity": "Song", "resultType": "count", "limit": limit, "offset": offset])["count"].int
            let objects = try client.result("fetch", ["entity": "Song", "resultType": "ids", "limit": limit, "offset": offset])["ids"].count
            #expect(count == expected, "limit \(limit) offset \(offset)")
            #expect(count == objects)
        }
        try server.stop()
    }

    @Test func predicateVariablesAreRefusedWithWhereTheyAre() throws {
        let (server, client, _) = try Self.sample()
        let answer = try client.call("fetch", ["entity": "Song", "predicate": "plays > $minimum"])
        #expect(answer["error"]["code"].int == -32602, "\(answer)")
        #expect(answer["error"]["data"]["path"].string == "params.predicate")
        #expect(answer["error"]["data"]["position"].int == 8, "\(answer)")
        try server.stop()
    }

    @Test func decimalsThatCannotBeKeptExactlyAreRefusedNeverRounded() throws {
        let (server, client, _) = try Self.sample()
        let exact = ["12345678901234567890123456789012345678", "0.00000000000000000000000000000000000001", "1e127", "-1.5e-90", "123000000000000000000000000000000000000000"]
        for (index, text) in exact.enumerated() {
            let saved = try client.result("save", ["insert": [["id": "b", "entity": "Album", "values": ["title": "t\(index)", "price": text]]]])
            #expect(saved["ids"]["b"].string != nil, "\(text)")
        }
        let inexact = ["123456789012345678901234567890123456789", "1.000000000000000000000000000000000000001", "1e200", "1e-200"]
        for text in inexact {
            // As a string, and as a JSON number (written raw: a client library would round it first).
            for value in ["\"\(text)\"", text] {
                let answer = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"b","entity":"Album","values":{"title":"x","price":\#(value)}}]}}"#)
                #expect(answer["error"]["code"].int == -32602, "\(text): \(answer)")
                #expect(answer["error"]["data"]["path"].string == "params.insert[0].values.price")
                #expect(answer["error"]["data"]["reason"].string?.contains("38") == true, "\(answer)")
            }
            let argument = try client.call("fetch", ["entity": "Album", "predicate": "price > %@", "arguments": [["decimal": text]]])
            #expect(argument["error"]["code"].int == -32602, "\(text): \(argument)")
        }
        try server.stop()
    }

    @Test func namingOneObjectTwiceInASaveIsInvalidParams() throws {
        let (server, client, data) = try Self.sample()
        let tag = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "x"]]]])["ids"]["t"].string ?? ""
        for params: [String: Any] in [
            ["update": [["id": tag, "version": 1, "values": ["label": "a"]], ["id": tag, "version": 1, "values": ["label": "b"]]]],
            ["update": [["id": tag, "version": 1, "values": ["label": "a"]]], "delete": [["id": tag, "version": 1]]],
            ["insert": [["id": "n", "entity": "Tag", "values": ["label": "a"]], ["id": "n", "entity": "Tag", "values": ["label": "b"]]]],
        ] {
            let answer = try client.call("save", params)
            #expect(answer["error"]["code"].int == -32602, "\(answer)")
        }
        _ = data
        try server.stop()
    }

    @Test func anUpdateThatChangesNothingSucceedsAndKeepsTheVersion() throws {
        let (server, client, data) = try Self.sample()
        let song = try client.result("get", ["ids": [data["s1"]]])["objects"][0]
        let version = song["version"].int ?? 0
        for values: [String: Any] in [[:], ["title": "So What"], ["plays": 7, "album": data["b1"]]] {
            let result = try client.result("save", ["update": [["id": data["s1"], "version": version, "values": values]]])
            #expect(result["versions"][data["s1"]].int == version, "\(values): \(result)")
            #expect(result["updated"].count == 0)
        }
        #expect(try client.result("get", ["ids": [data["s1"]]])["objects"][0]["version"].int == version)
        try server.stop()
    }

    @Test func denyAllowsTheDeleteWhenTheRelatedObjectsAreDeletedInTheSameSave() throws {
        let (server, client, data) = try Self.sample()
        let objects = try client.result("get", ["ids": [data["a2"], data["b2"]]])["objects"]
        let alone = try client.call("save", ["delete": [["id": data["a2"], "version": objects[0]["version"].int ?? 0]]])
        #expect(alone["error"]["code"].int == -32002, "deny refuses while the album stays: \(alone)")
        let together = try client.result("save", ["delete": [["id": data["a2"], "version": objects[0]["version"].int ?? 0],
                                                             ["id": data["b2"], "version": objects[1]["version"].int ?? 0]]])
        #expect(Set(together["deleted"].strings ?? []).isSuperset(of: [data["a2"], data["b2"], data["s5"], data["s6"]]), "\(together)")
        try server.stop()
    }

    @Test func theUserInfoOfTheStoreIsNotAMethod() throws {
        let (server, client, _) = try Self.sample()
        let answer = try client.call("setUserInfo", ["userInfo": ["a": 1]])
        #expect(answer["error"]["code"].int == -32601)
        try server.stop()
    }
}
