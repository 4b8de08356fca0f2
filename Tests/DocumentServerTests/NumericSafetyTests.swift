import Foundation
import ServerTestSupport
import Testing

/// Numbers at the edges of the 64-bit range, sent to the real server: each used to kill it
/// (SIGILL, nothing logged). Each now gets an exact answer or a clear error, and the server
/// goes on answering.
@Suite struct NumericSafetyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let sampleModelPath = root.appendingPathComponent("Sources/docserver/Resources/sample.model.json").path

    @Test func fetchWithOffsetPlusLimitPastInt64MaxAnswersTheRestOfThePage() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try SampleData.insert(through: client)
        let page = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Song","resultType":"ids","offset":1,"limit":9223372036854775807}}"#)
        #expect(page["result"]["ids"].array?.count == 5, "\(page)")
        let count = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"fetch","params":{"entity":"Song","resultType":"count","offset":9223372036854775807,"limit":9223372036854775807}}"#)
        #expect(count["result"]["count"].int == 0, "\(count)")
        let sorted = try client.request(#"{"jsonrpc":"2.0","id":3,"method":"fetch","params":{"entity":"Song","resultType":"ids","sort":[{"key":"title"}],"offset":2,"limit":9223372036854775807}}"#)
        #expect(sorted["result"]["ids"].array?.count == 4, "\(sorted)")
        #expect(try client.result("ping").string == "pong")
        #expect(try server.stop() == 0)
    }

    @Test func fetchComparingAnInt64WithTwoTo63AsADoubleAnswersExactly() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try SampleData.insert(through: client)
        let cases: [(predicate: String, arguments: String, expected: Int)] = [
            ("plays == %@", "[9223372036854775808]", 0),
            ("plays == %f", "[9223372036854775808]", 0),
            ("plays == 9223372036854775808", "[]", 0),
            ("plays < %@", "[9223372036854775808]", 6),
            ("plays < 9223372036854775808.0", "[]", 6),
            ("plays > -9223372036854775809", "[]", 6),
            ("plays IN %@", "[[9223372036854775808, 7]]", 1),
            ("plays BETWEEN %@", "[[0, 9223372036854775808]]", 6),
            ("plays BETWEEN {5, 9.3e18}", "[]", 4),
        ]
        for (index, test) in cases.enumerated() {
            let line = #"{"jsonrpc":"2.0","id":\#(index),"method":"fetch","params":{"entity":"Song","resultType":"count","predicate":"\#(test.predicate)","arguments":\#(test.arguments)}}"#
            let answer = try client.request(line)
            #expect(answer["result"]["count"].int == test.expected, "\(test.predicate) \(test.arguments): \(answer)")
        }
        let albums = try client.request(#"{"jsonrpc":"2.0","id":"c","method":"fetch","params":{"entity":"Album","resultType":"count","predicate":"songs.@count < %@ AND songs.@sum.plays < 9223372036854775808","arguments":[9223372036854775808]}}"#)
        #expect(albums["result"]["count"].int == 2, "\(albums)")
        #expect(try client.result("ping").string == "pong")
        #expect(try server.stop() == 0)
    }

    @Test func aDoubleOf2To63SavedThenComparedAnswersAfterARestart() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let saved = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"s","entity":"Song","values":{"title":"Edge","rating":9223372036854775808}}]}}"#)
        #expect(saved["error"].isMissing, "\(saved)")
        let fetch = #"{"jsonrpc":"2.0","id":2,"method":"fetch","params":{"entity":"Song","resultType":"count","predicate":"rating > 9223372036854775807 AND rating != %@","arguments":[9223372036854775807]}}"#
        #expect(try client.request(fetch)["result"]["count"].int == 1)
        #expect(try server.stop() == 0)

        let again = try ServerProcess(store: server.storeURL, keeping: directory)
        let second = try again.connect()
        #expect(try second.request(fetch)["result"]["count"].int == 1)
        let sum = try second.request(#"{"jsonrpc":"2.0","id":3,"method":"fetch","params":{"entity":"Song","resultType":"count","predicate":"rating == 9223372036854775807 OR rating < -9223372036854775808 OR rating IN {9223372036854775807}"}}"#)
        #expect(sum["result"]["count"].int == 0, "\(sum)")
        #expect(try again.stop() == 0)
    }

    @Test func sumsOfIntegersPastInt64AreExactOverTheWire() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        let saved = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"b","entity":"Album","values":{"title":"Big"}},{"id":"s1","entity":"Song","values":{"title":"a","plays":9223372036854775807,"album":"b"}},{"id":"s2","entity":"Song","values":{"title":"b","plays":1,"album":"b"}},{"id":"s3","entity":"Song","values":{"title":"c","plays":-9223372036854775807,"album":"b"}}]}}"#)
        #expect(saved["error"].isMissing, "\(saved)")
        for (predicate, expected) in [("songs.@sum.plays == 1", 1), ("songs.@avg.plays > 0", 1),
                                      ("songs.@sum.plays > 9223372036854775807", 0)] {
            let answer = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"fetch","params":{"entity":"Album","resultType":"count","predicate":"\#(predicate)"}}"#)
            #expect(answer["result"]["count"].int == expected, "\(predicate): \(answer)")
        }
        #expect(try server.stop() == 0)
    }

    // MARK: - References and versions at Int64.max in the store file

    /// A store file of the sample model holding one Song with `ref` and `version`, and `nextReference`.
    static func storeFile(ref: String, version: String, nextReference: String, in directory: TemporaryDirectory) throws -> URL {
        let fixture = try String(contentsOf: root.appendingPathComponent("Tests/DocumentServerTests/Fixtures/examples.store.json"), encoding: .utf8)
        let song = #"{"Song":[{"ref":\#(ref),"version":\#(version),"values":{"title":"Edge","plays":1,"rating":null,"uid":null,"album":null,"tags":[]}}]}"#
        let text = fixture.replacingOccurrences(of: #""nextReference":1"#, with: #""nextReference":\#(nextReference)"#)
            .replacingOccurrences(of: #""objects":{}"#, with: #""objects":\#(song)"#)
        let url = directory.file("store.json")
        try Data(text.utf8).write(to: url)
        return url
    }

    static let storeUUID = "6b3a0c2e-5d1f-4e8a-9c7b-1f2e3d4c5b6a"
    static let max = "9223372036854775807"

    @Test func aStoreWithReferenceInt64MaxLoadsAndRefusesAnInsertClearly() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeFile(ref: Self.max, version: "1", nextReference: "1", in: directory)
        let before = try Data(contentsOf: store)
        let server = try ServerProcess(store: store, keeping: directory)
        let client = try server.connect()
        let id = "graph://\(Self.storeUUID)/Song/\(Self.max)"
        #expect(try client.result("get", ["ids": [id]])["objects"][0]["values"]["title"].string == "Edge")
        let insert = try client.call("save", ["insert": [["id": "n", "entity": "Song", "values": ["title": "New"]]]])
        #expect(insert["error"]["code"].int == -32602, "\(insert)")
        #expect(insert["error"]["message"].string?.contains("no reference left") == true, "\(insert)")
        #expect(insert["error"]["data"]["path"].string == "params.insert", "\(insert)")
        // The object itself can still be changed, and the server goes on.
        let update = try client.call("save", ["update": [["id": id, "version": 1, "values": ["plays": 2]]]])
        #expect(update["result"]["versions"][id].int == 2, "\(update)")
        #expect(try client.result("ping").string == "pong")
        #expect(try server.stop() == 0)
        #expect(try Data(contentsOf: store) != before, "the update was written")
    }

    @Test func aStoreWithNextReferenceInt64MaxRefusesAnInsertAndKeepsItsData() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeFile(ref: "3", version: "1", nextReference: Self.max, in: directory)
        let server = try ServerProcess(store: store, keeping: directory)
        let client = try server.connect()
        let insert = try client.call("save", ["insert": [["id": "n", "entity": "Song", "values": ["title": "New"]]]])
        #expect(insert["error"]["code"].int == -32602, "\(insert)")
        #expect(insert["error"]["message"].string?.contains("Song") == true, "\(insert)")
        #expect(try client.result("fetch", ["entity": "Song", "resultType": "count"])["count"].int == 1)
        #expect(try server.stop() == 0)

        let check = try runDocServer(["check", "--model", Self.sampleModelPath, "--store", store.path])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("no reference left"), "\(check.output)")
    }

    @Test func anObjectAtVersionInt64MaxRefusesAnUpdateClearlyAndOtherSavesGoOn() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeFile(ref: "3", version: Self.max, nextReference: "4", in: directory)
        let server = try ServerProcess(store: store, keeping: directory)
        let client = try server.connect()
        let id = "graph://\(Self.storeUUID)/Song/3"
        let got = try client.result("get", ["ids": [id]])["objects"][0]
        #expect(got["version"].description == Self.max, "\(got)")
        let update = try client.request(#"{"jsonrpc":"2.0","id":1,"method":"save","params":{"update":[{"id":"\#(id)","version":9223372036854775807,"values":{"plays":2}}]}}"#)
        #expect(update["error"]["code"].int == -32602, "\(update)")
        #expect(update["error"]["message"].string?.contains("largest a version can be") == true, "\(update)")
        // An insert relating to it changes it too (the inverse): refused the same way.
        let related = try client.request(#"{"jsonrpc":"2.0","id":2,"method":"save","params":{"insert":[{"id":"b","entity":"Album","values":{"title":"A","songs":["\#(id)"]}}]}}"#)
        #expect(related["error"]["code"].int == -32602, "\(related)")
        let other = try client.call("save", ["insert": [["id": "n", "entity": "Song", "values": ["title": "New"]]]])
        #expect(other["error"].isMissing, "\(other)")
        #expect(try client.result("get", ["ids": [id]])["objects"][0]["values"]["plays"].int == 1)
        #expect(try server.stop() == 0)

        let check = try runDocServer(["check", "--model", Self.sampleModelPath, "--store", store.path])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("largest version"), "\(check.output)")
    }
}
