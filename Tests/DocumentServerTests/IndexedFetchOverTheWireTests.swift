import Foundation
import ServerTestSupport
import Testing

/// `fetch` over a socket answers through the model's fetch indexes, kept in the server's
/// read state as saves commit, and `explain: true` tells how it answered.
@Suite struct IndexedFetchOverTheWireTests {
    static let model = """
    {"entities": [{"name": "Song",
                   "attributes": [{"name": "title", "type": "string"}, {"name": "plays", "type": "int64"},
                                  {"name": "genre", "type": "string", "optional": true}],
                   "fetchIndexes": [{"name": "byTitle", "elements": [{"property": "title"}]},
                                    {"name": "byPlays", "elements": [{"property": "plays", "order": "descending"}]}]}]}
    """

    /// A server holding `count` songs: title `t<n>`, plays `n % 50`, genre `g<n % 7>`.
    static func server(songs count: Int, in directory: TemporaryDirectory) throws -> ServerProcess {
        let modelURL = directory.file("model.json")
        try Data(model.utf8).write(to: modelURL)
        let server = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
        let client = try server.connect()
        let inserts: [[String: Any]] = (0..<count).map { n in
            ["id": "s\(n)", "entity": "Song", "values": ["title": "t\(n)", "plays": n % 50, "genre": "g\(n % 7)"]]
        }
        _ = try client.result("save", ["insert": inserts])
        return server
    }

    @Test func anIndexedEqualityExaminesOnlyItsMatchAndExplainNamesTheIndex() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(songs: 300, in: directory)
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        let found = try client.result("fetch", ["entity": "Song", "predicate": "title == %@", "arguments": ["t42"], "explain": true])
        #expect(found["objects"].count == 1)
        #expect(found["objects"][0]["values"]["title"].string == "t42")
        let plan = found["plan"]
        #expect(plan["access"].string == "index")
        #expect(plan["index"].string == "byTitle" && plan["key"].string == "title" && plan["operation"].string == "==")
        #expect(plan["objectsExamined"].int == 1 && plan["sortedByIndex"].bool == false)
        #expect(plan["text"].string == "index byTitle on title (==), examined 1 object")

        let scan = try client.result("fetch", ["entity": "Song", "predicate": "genre == 'g3'", "resultType": "count", "explain": true])
        #expect(scan["count"].int == 43)
        #expect(scan["plan"]["access"].string == "scan" && scan["plan"]["objectsExamined"].int == 300)
        #expect(scan["plan"]["index"].isMissing)

        let plain = try client.result("fetch", ["entity": "Song", "predicate": "title == 't42'", "resultType": "ids"])
        #expect(plain.keys == ["ids"])
    }

    @Test func theMostPlayedComeFromTheIndexInTheOrderOfAFullSort() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(songs: 300, in: directory)
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        let top = try client.result("fetch", ["entity": "Song", "sort": [["key": "plays", "ascending": false]], "limit": 8, "offset": 3,
                                              "resultType": "ids", "explain": true])
        #expect(top["plan"]["operation"].string == "ORDER BY" && top["plan"]["sortedByIndex"].bool == true)
        #expect(top["plan"]["objectsExamined"].int == 11)
        // The same order as the sort of every song (a scan: no limit, no range): ties by reference.
        let all = try client.result("fetch", ["entity": "Song", "sort": [["key": "plays", "ascending": false]], "resultType": "ids", "explain": true])
        #expect(all["plan"]["access"].string == "scan")
        let page = try #require(all["ids"].strings)
        #expect(top["ids"].strings == Array(page[3..<11]))

        let range = try client.result("fetch", ["entity": "Song", "predicate": "plays BETWEEN {10, 12} AND genre == 'g1'",
                                                "sort": [["key": "plays"]], "resultType": "count", "explain": true])
        #expect(range["plan"]["index"].string == "byPlays" && range["plan"]["objectsExamined"].int == 18)
        #expect(range["count"].int == 3)
    }

    @Test func theIndexesFollowEverySaveAndAReaderKeepsTheStateItTook() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(songs: 120, in: directory)
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        let before = try client.result("fetch", ["entity": "Song", "predicate": "title == 't7'"])
        let song = before["objects"][0]
        let id = try #require(song["id"].string)
        let version = try #require(song["version"].int)
        _ = try client.result("save", ["update": [["id": id, "version": version, "values": ["title": "renamed", "plays": 1_000]]],
                                   "insert": [["id": "n", "entity": "Song", "values": ["title": "t7", "plays": 2_000]]]])
        let old = try client.result("fetch", ["entity": "Song", "predicate": "title == 't7'", "resultType": "ids", "explain": true])
        #expect(old["ids"].count == 1 && old["ids"][0].string != id)
        #expect(old["plan"]["access"].string == "index")
        let renamed = try client.result("fetch", ["entity": "Song", "predicate": "title == 'renamed'", "resultType": "ids"])
        #expect(renamed["ids"].strings == [id])
        let top = try client.result("fetch", ["entity": "Song", "sort": [["key": "plays", "ascending": false]], "limit": 2, "resultType": "ids"])
        #expect(top["ids"][1].string == id)

        let deleted = try client.result("fetch", ["entity": "Song", "predicate": "title == 'renamed'"])
        _ = try client.result("save", ["delete": [["id": id, "version": deleted["objects"][0]["version"].int ?? 0]]])
        let gone = try client.result("fetch", ["entity": "Song", "predicate": "plays > 500", "resultType": "count", "explain": true])
        #expect(gone["count"].int == 1 && gone["plan"]["objectsExamined"].int == 1)
    }

    /// A fetch an index answers in a few entries is answered on the connection's thread; one
    /// that walks more is left to a reader thread. Both answer as a scan does.
    @Test func fetchesWithinAndPastTheQuickWalkAnswerAsAScan() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(songs: 300, in: directory)
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        let few = try client.result("fetch", ["entity": "Song", "predicate": "plays == 7", "resultType": "ids", "explain": true])
        #expect(few["plan"]["objectsExamined"].int == 6 && few["plan"]["index"].string == "byPlays")
        let fewScan = try client.result("fetch", ["entity": "Song", "predicate": "NOT (plays != 7)", "resultType": "ids", "explain": true])
        #expect(fewScan["plan"]["access"].string == "scan")
        #expect(Set(try #require(few["ids"].strings)) == Set(try #require(fewScan["ids"].strings)))

        // 20 equalities, 120 songs: more entries than a connection's thread walks.
        let many = try client.result("fetch", ["entity": "Song", "predicate": "plays IN %@", "arguments": [Array(0..<20)],
                                               "resultType": "ids", "explain": true])
        #expect(many["plan"]["operation"].string == "IN" && many["plan"]["objectsExamined"].int == 120)
        let manyScan = try client.result("fetch", ["entity": "Song", "predicate": "NOT (plays >= 20)", "resultType": "ids"])
        #expect(Set(try #require(many["ids"].strings)) == Set(try #require(manyScan["ids"].strings)) && many["ids"].count == 120)

        // The 70 most played through the index's order, against the sort of every song.
        let top = try client.result("fetch", ["entity": "Song", "sort": [["key": "plays", "ascending": false]], "limit": 70,
                                              "resultType": "ids", "explain": true])
        #expect(top["plan"]["sortedByIndex"].bool == true && top["plan"]["objectsExamined"].int == 70)
        let all = try client.result("fetch", ["entity": "Song", "predicate": "NOT (plays < 0)", "sort": [["key": "plays", "ascending": false]],
                                              "resultType": "ids"])
        #expect(top["ids"].strings == Array(try #require(all["ids"].strings).prefix(70)))
    }

    @Test func explainMustBeABoolean() throws {
        let directory = try TemporaryDirectory()
        let server = try Self.server(songs: 1, in: directory)
        defer { withExtendedLifetime(server) {} }
        let client = try server.connect()
        let answer = try client.call("fetch", ["entity": "Song", "explain": "yes"])
        #expect(answer["error"]["code"].int == -32602)
        #expect(answer["error"]["message"].string?.contains("explain") == true, "\(answer)")
    }
}
