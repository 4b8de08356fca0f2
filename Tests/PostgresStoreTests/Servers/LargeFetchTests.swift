import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// A fetch over a bounded cache that matches more objects than an answer may hold
/// (`--max-answer-bytes`) stops reading the database's rows once they pass twice the answer's
/// limit, and is refused as an answer too large, instead of holding every row first; the
/// server's connections to the database go on serving the next fetches.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct LargeFetchTests {
    /// `count` Tags labelled alike (`label`), saved through `client` in saves of 2,000.
    private func insertTags(_ count: Int, label: String, through client: WireClient) throws {
        for start in stride(from: 0, to: count, by: 2_000) {
            let inserts = (start..<min(start + 2_000, count)).map { ["id": "t\($0)", "entity": "Tag", "values": ["label": label]] as [String: Any] }
            _ = try client.result("save", ["insert": inserts])
        }
    }

    private func expectTooLarge(_ answer: [String: Any], limit: Int, _ what: String) {
        let error = answer["error"] as? [String: Any]
        #expect(error?["code"] as? Int == -32005, "\(what): \(answer)")
        let data = error?["data"] as? [String: Any]
        #expect(data?["what"] as? String == "answer" && data?["limit"] as? Int == limit, "\(what): \(answer)")
    }

    @Test func aFetchOfMoreThanAnAnswerHoldsIsRefusedAndTheServerGoesOn() throws {
        let servers = try DatabaseServers(count: 1)
        try insertTags(3_000, label: "same", through: try servers.connect(0))
        // 16 KiB of answer: about 100 Tags; the rows of 3,000 take far more than twice that.
        let limit = 16_384
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--max-answer-bytes", "\(limit)"])
        let client = try WireClient(port: cached.port)
        // Every Tag: one statement (on the connection's event loop).
        expectTooLarge(try client.call("fetch", ["entity": "Tag"]), limit: limit, "every Tag")
        // Sorted by a key SQL sorts by, and the equality that the event loop reads together with others.
        expectTooLarge(try client.call("fetch", ["entity": "Tag", "sort": [["key": "label"]]]), limit: limit, "sorted")
        expectTooLarge(try client.call("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": ["same"]]), limit: limit,
                       "label == 'same'")
        // A page of them fits, and the count and the IDs are not refused: the same connections
        // to the database answer them.
        for _ in 0..<3 {
            let page = try client.result("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": ["same"], "limit": 20])
            #expect((page["objects"] as? [Any])?.count == 20, "\(page)")
            let count = try client.result("fetch", ["entity": "Tag", "resultType": "count"])
            #expect(count["count"] as? Int == 3_000, "\(count)")
        }
        let ids = try client.result("fetch", ["entity": "Tag", "resultType": "ids", "limit": 50])
        #expect((ids["ids"] as? [String])?.count == 50, "\(ids)")
        // Many at once, from other connections: each refused alone, none holding the others up.
        let others = try (0..<4).map { _ in try WireClient(port: cached.port) }
        for other in others { expectTooLarge(try other.call("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": ["same"]]), limit: limit, "another connection") }
        let stats = try client.result("stats")
        #expect((stats["store"] as? [String: Any])?["objects"] as? Int ?? .max < 1_000, "the cache took the refused fetch's objects: \(stats)")
    }

    @Test func aRefusedFetchDoesNotHoldItsRowsFirst() throws {
        let servers = try DatabaseServers(count: 1)
        // 40,000 Tags of 300-byte labels: about 12 MB of rows, several times that as rows and
        // objects in the server.
        let label = String(repeating: "l", count: 300)
        try insertTags(40_000, label: label, through: try servers.connect(0))
        let limit = 16_384
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--max-answer-bytes", "\(limit)"])
        let client = try WireClient(port: cached.port)
        // The connections to the database made and their statements prepared first.
        for _ in 0..<3 {
            _ = try client.result("fetch", ["entity": "Tag", "limit": 5])
            _ = try client.result("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": [label], "limit": 5])
        }
        let before = try cached.peakMemory()
        for _ in 0..<3 {
            expectTooLarge(try client.call("fetch", ["entity": "Tag"]), limit: limit, "every Tag")
            expectTooLarge(try client.call("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": [label]]), limit: limit, "label ==")
        }
        let grown = try cached.peakMemory() - before
        #expect(grown < 8 << 20, "the server's peak memory grew by \(grown) bytes for fetches refused as too large")
    }
}
