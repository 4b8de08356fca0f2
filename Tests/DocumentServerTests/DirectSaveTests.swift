import DocumentProtocol
import Foundation
import ServerTestSupport
import Testing

/// A plain `save` is read straight from its line into the call the writer stages: its answers
/// and errors are byte for byte those of the general path. Two servers get the same lines in
/// the same order: one as usual, one logging at debug level (which sends every line the
/// general way); their answers, store identifiers aside, are the same.
@Suite struct DirectSaveTests {
    /// The two servers on the test model (`SaveCallLineTests.model`), each holding the same
    /// first objects: Things 1-3, Persons 4-5, Tags 6-7, Dogs 8-9.
    private struct Pair {
        let fast: ServerProcess
        let general: ServerProcess
        let fastClient: LineClient
        let generalClient: LineClient
        let fastStore: String
        let generalStore: String

        init() throws {
            let directory = try TemporaryDirectory(), generalDirectory = try TemporaryDirectory()
            let modelURL = directory.file("model.json")
            try Data(SaveCallLineTests.model.utf8).write(to: modelURL)
            fast = try ServerProcess(in: directory, arguments: ["--model", modelURL.path])
            general = try ServerProcess(in: generalDirectory, arguments: ["--model", modelURL.path, "--log-level", "debug"])
            fastClient = try fast.connect()
            generalClient = try general.connect()
            let first = #"{"jsonrpc":"2.0","id":0,"method":"save","params":{"insert":[{"id":"a","entity":"Thing","values":{"s":"one"}},{"id":"b","entity":"Thing"},{"id":"c","entity":"Thing"},{"id":"p","entity":"Person","values":{"name":"P"}},{"id":"q","entity":"Person","values":{"name":"Q"}},{"id":"g","entity":"Tag","values":{"label":"G"}},{"id":"h","entity":"Tag","values":{"label":"H"}},{"id":"d","entity":"Dog","values":{"name":"D"}},{"id":"e","entity":"Dog","values":{"name":"E"}}]}}"#
            fastStore = try Self.store(of: fastClient.request(first))
            generalStore = try Self.store(of: generalClient.request(first))
        }

        private static func store(of answer: JSON) throws -> String {
            let id = try #require(answer["result"]["ids"]["a"].string)
            return String(id.split(separator: "/")[1])
        }

        /// Sends `line` (its IDs on store `S`) to both servers; their answers with `{S}` for their stores.
        func answers(_ line: String) throws -> (fast: String, general: String) {
            let fast = try fastClient.exchange(line.replacingOccurrences(of: "graph://S/", with: "graph://\(fastStore)/"))
            let general = try generalClient.exchange(line.replacingOccurrences(of: "graph://S/", with: "graph://\(generalStore)/"))
            return (fast.replacingOccurrences(of: fastStore, with: "{S}"), general.replacingOccurrences(of: generalStore, with: "{S}"))
        }

        func stop() throws {
            try fast.stop()
            try general.stop()
        }
    }

    @Test func plainAndUnusualSavesAreAnsweredByteForByteAsTheGeneralPathAnswersThem() throws {
        let pair = try Pair()
        var lines = SaveCallLineTests.plain + SaveCallLineTests.unusual.filter { !$0.isEmpty && !$0.hasPrefix(#"{"jsonrpc":"2.0","method""#) }  // each answered
        // Updates that succeed, with references to existing and inserted objects.
        lines += [
            SaveCallLineTests.save(#"{"update":[{"id":"graph://S/Thing/1","version":1,"values":{"i64":-5,"d":2.5,"s":"ünïcode ☃","b":true,"owner":"graph://S/Person/4","tags":["graph://S/Tag/6","graph://S/Tag/7"]}}]}"#),
            SaveCallLineTests.save(#"{"insert":[{"id":"n","entity":"Thing","values":{"owner":"p2","pet":"graph://S/Dog/8","tags":["graph://S/Tag/6"]}},{"id":"p2","entity":"Person","values":{"name":"New"}}]}"#),
            SaveCallLineTests.save(#"{"update":[{"id":"graph://S/Thing/1","version":2,"values":{"owner":null,"tags":[],"dec":"1.25","dt":"2020-01-01T00:00:00Z"}}],"delete":[{"id":"graph://S/Thing/2","version":1}]}"#),
            SaveCallLineTests.save(#"{"update":[{"id":"graph://S/Thing/1","version":2,"values":{"s":"stale"}}]}"#),
            SaveCallLineTests.save(#"{"delete":[{"id":"graph://S/Person/5","version":1}]}"#),
            SaveCallLineTests.save(#"{"insert":[{"id":"x","entity":"Person"}]}"#),
            SaveCallLineTests.save(#"{"delete":[{"id":"graph://S/Thing/999","version":1}]}"#),
        ]
        for line in lines {
            let (fast, general) = try pair.answers(line)
            #expect(fast == general, "\(line)")
        }
        try pair.stop()
    }

    @Test func randomSavesAreAnsweredByteForByteAsTheGeneralPathAnswersThem() throws {
        let pair = try Pair()
        var random = SplitMix64(seed: 45)
        var saved = 0, read = 0
        for _ in 0..<400 {
            let line = SaveCallLineTests.randomLine(&random)
            if Array(line.utf8).withUnsafeBytes({ SaveRequestLine.read($0) }) != nil { read += 1 }
            let (fast, general) = try pair.answers(line)
            #expect(fast == general, "\(line)")
            if fast.contains(#""result":"#) { saved += 1 }
        }
        // Most lines are read by the fast path; most of those are refused later (versions, references), a few saved.
        #expect(read > 100)
        #expect(saved > 3)
        try pair.stop()
    }

    @Test func aServerWithATokenTakesAPlainSaveOnlyAfterHello() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--auth-token", "secret"])
        let client = try server.connect()
        let line = #"{"jsonrpc":"2.0","id":1,"method":"save","params":{"insert":[{"id":"t","entity":"Tag","values":{"label":"x"}}]}}"#
        let refused = try client.request(line)
        #expect(refused["error"]["code"].int == -32004)
        _ = try client.result("hello", ["token": "secret", "client": "tester"])
        let saved = try client.request(line)
        let id = try #require(saved["result"]["ids"]["t"].string)
        // The connection's client is the save's author, as on the general way.
        let history = try client.result("changes", ["since": 0])
        #expect(history["changes"][0]["author"].string == "tester", "\(history)")
        #expect(id.hasPrefix("graph://"))
        try server.stop()
    }
}
