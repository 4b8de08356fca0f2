import Foundation
import ServerTestSupport
import Testing

/// `fetch` with `stream: true` (`docs/PROTOCOL.md`, Streamed answers), against the real server:
/// an answer larger than `--max-answer-bytes` comes in parts, each line within the limit, then a
/// `result` with the rest and the count; the connection's later answers come after it.
@Suite struct StreamedFetchTests {
    /// Inserts `count` Tags labelled `0000…`, `0001…` (`length` characters), ten per save.
    static func insertTags(_ count: Int, length: Int, through client: LineClient) throws {
        for start in stride(from: 0, to: count, by: 10) {
            let insert = (start..<min(start + 10, count)).map { index -> [String: Any] in
                ["id": "t\(index)", "entity": "Tag", "values": ["label": String(format: "%04d", index) + String(repeating: "x", count: length - 4)]]
            }
            _ = try client.result("save", ["insert": insert])
        }
    }

    /// What a streamed answer sent: its parts' lines, and its last line.
    struct Streamed {
        var parts: [JSON] = []
        var lines: [String] = []
        var last = JSON(nil)

        /// The elements of every part and of the result, in order (`key`: `objects` or `ids`).
        func elements(_ key: String) -> [JSON] {
            parts.flatMap { $0["part"][key].array ?? [] } + (last["result"][key].array ?? [])
        }
    }

    /// Sends a streamed fetch as request `id` and reads its lines up to its last one.
    static func stream(_ params: [String: Any], id: Int, through client: LineClient) throws -> Streamed {
        var request = params
        request["stream"] = true
        try client.sendLine(JSON.text(["jsonrpc": "2.0", "id": id, "method": "fetch", "params": request]))
        return try readStream(id: id, from: client)
    }

    static func readStream(id: Int, from client: LineClient) throws -> Streamed {
        var streamed = Streamed()
        while true {
            let line = try client.readLine()
            streamed.lines.append(line)
            let message = try JSON(parsing: line)
            #expect(message["id"].int == id, "\(line.prefix(200))")
            if message["part"].isMissing {
                streamed.last = message
                return streamed
            }
            #expect(message["result"].isMissing && message["error"].isMissing)
            streamed.parts.append(message)
        }
    }

    @Test func aStreamLargerThanTheAnswerLimitComesInPartsEachWithinItAndInTheFetchsOrder() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "4096"])
        let client = try server.connect()
        try Self.insertTags(300, length: 100, through: client)
        // Refused whole, as before.
        #expect(try client.call("fetch", ["entity": "Tag"])["error"]["code"].int == -32005)
        let sort: [[String: Any]] = [["key": "label", "ascending": false]]
        // A ping sent right behind the stream is answered after its last line.
        let streamed = try Self.stream(["entity": "Tag", "sort": sort], id: 100, through: client)
        #expect(streamed.parts.count >= 5, "\(streamed.parts.count) parts")
        for line in streamed.lines { #expect(line.utf8.count + 1 <= 4096, "a line of \(line.utf8.count) bytes") }
        #expect(streamed.last["result"]["count"].int == 300, "\(streamed.last)")
        let objects = streamed.elements("objects")
        // The same objects, in the same order, as the pages of the same fetch.
        var paged: [JSON] = []
        for offset in stride(from: 0, to: 300, by: 10) {
            paged += try client.result("fetch", ["entity": "Tag", "sort": sort, "limit": 10, "offset": offset])["objects"].array ?? []
        }
        #expect(objects.map(\.description) == paged.map(\.description))
        #expect(objects.first?["values"]["label"].string?.hasPrefix("0299") == true)
        try server.stop()
    }

    @Test func theLaterRequestsOfTheConnectionAreAnsweredAfterTheStreamsLastLine() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "4096"])
        let client = try server.connect()
        try Self.insertTags(200, length: 100, through: client)
        try client.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Tag","stream":true}}"# + "\n"
            + #"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
        let streamed = try Self.readStream(id: 1, from: client)
        #expect(streamed.elements("objects").count == 200)
        #expect(try JSON(parsing: client.readLine())["result"].string == "pong")
        try server.stop()
    }

    @Test func idsPagesAndThePlanStream() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "2048"])
        let client = try server.connect()
        try Self.insertTags(120, length: 20, through: client)
        let streamed = try Self.stream(["entity": "Tag", "resultType": "ids", "predicate": "label BEGINSWITH %@", "arguments": ["00"],
                                        "sort": [["key": "label"]], "offset": 5, "limit": 90, "explain": true], id: 7, through: client)
        let ids = streamed.elements("ids").compactMap(\.string)
        #expect(ids.count == 90 && streamed.last["result"]["count"].int == 90, "\(streamed.last)")
        #expect(streamed.parts.count >= 2)
        var paged: [String] = []
        for offset in stride(from: 5, to: 95, by: 15) {
            paged += try client.result("fetch", ["entity": "Tag", "resultType": "ids", "predicate": "label BEGINSWITH %@", "arguments": ["00"],
                                                 "sort": [["key": "label"]], "offset": offset, "limit": 15])["ids"].strings ?? []
        }
        #expect(ids == paged)
        #expect(streamed.last["result"]["plan"]["access"].string != nil, "\(streamed.last)")
        // Nothing matches: no part, an empty result.
        let none = try Self.stream(["entity": "Tag", "predicate": "label == %@", "arguments": ["none"]], id: 8, through: client)
        #expect(none.parts.isEmpty && none.last["result"]["count"].int == 0 && none.last["result"]["objects"].count == 0, "\(none.last)")
        try server.stop()
    }

    @Test func aStreamIsNotSentInABatchAndACountIsAnsweredWhole() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        try Self.insertTags(30, length: 10, through: client)
        let batch = try client.request(#"[{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Tag","stream":true}},{"jsonrpc":"2.0","id":2,"method":"ping"}]"#)
        #expect(batch[0]["error"]["code"].int == -32600, "\(batch)")
        #expect(batch[1]["result"].string == "pong")
        let count = try client.call("fetch", ["entity": "Tag", "resultType": "count", "stream": true])
        #expect(count["result"]["count"].int == 30, "\(count)")
        let wrong = try client.call("fetch", ["entity": "Tag", "stream": "yes"])
        #expect(wrong["error"]["code"].int == -32602 && wrong["error"]["data"]["path"].string == "params.stream", "\(wrong)")
        try server.stop()
    }

    @Test func anObjectTooLargeForALineEndsTheStreamWithAnErrorAndTheConnectionGoesOn() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--max-answer-bytes", "4096"])
        let client = try server.connect()
        try Self.insertTags(100, length: 100, through: client)
        _ = try client.result("save", ["insert": [["id": "big", "entity": "Tag", "values": ["label": "9" + String(repeating: "y", count: 5_000)]]]])
        let streamed = try Self.stream(["entity": "Tag", "sort": [["key": "label"]]], id: 3, through: client)
        #expect(streamed.parts.count >= 2, "the parts before it were sent")
        #expect(streamed.last["error"]["code"].int == -32005 && streamed.last["error"]["data"]["what"].string == "answer", "\(streamed.last)")
        #expect(try client.result("ping").string == "pong")
        try server.stop()
    }

    @Test func aClientThatStopsReadingAStreamIsClosedAtTheIdleTimeoutWhileOthersAreServed() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--idle-timeout", "1", "--max-answer-bytes", "65536"])
        let loader = try server.connect()
        // About 8 MB of answer: more than the sockets' buffers hold.
        for start in stride(from: 0, to: 4_000, by: 25) {
            let insert = (start..<start + 25).map { ["id": "t\($0)", "entity": "Tag", "values": ["label": String(repeating: "z", count: 2_000)]] as [String: Any] }
            _ = try loader.result("save", ["insert": insert])
        }
        loader.close()
        let stalled = try server.connect()
        try stalled.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"fetch","params":{"entity":"Tag","stream":true}}"#)
        Thread.sleep(forTimeInterval: 0.5)
        let other = try server.connect()
        for _ in 0..<8 {
            #expect(try other.result("ping").string == "pong")
            #expect(try other.result("fetch", ["entity": "Tag", "resultType": "count"])["count"].int == 4_000)
            Thread.sleep(forTimeInterval: 0.4)
        }
        // Closed while its answer was unread: what it got ends before the stream's last line.
        let received = try stalled.bytesUntilClosed(timeout: 10)
        #expect(received.count < 8_000_000, "\(received.count) bytes")
        let text = String(decoding: received, as: UTF8.self)
        #expect(!text.contains(#""result""#), "the stream ended although its client did not read it")
        try server.stop()
    }
}
