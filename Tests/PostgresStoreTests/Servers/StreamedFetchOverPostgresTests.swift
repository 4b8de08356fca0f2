import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `fetch` with `stream: true` over a bounded cache: a fetch one statement answers sends the
/// database's rows on as they come, so that a result far larger than an answer comes whole
/// without the server holding it, and a client that stops reading holds the database's rows
/// back (PostgreSQL waits to send them) instead of filling the server's memory.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct StreamedFetchOverPostgresTests {
    /// `count` Tags labelled `label` and their number, saved through `client` in saves of 2,000.
    private func insertTags(_ count: Int, label: String, through client: WireClient) throws {
        for start in stride(from: 0, to: count, by: 2_000) {
            let inserts = (start..<min(start + 2_000, count)).map {
                ["id": "t\($0)", "entity": "Tag", "values": ["label": String(format: "%05d", $0) + label]] as [String: Any]
            }
            _ = try client.result("save", ["insert": inserts])
        }
    }

    @Test func aStreamFarLargerThanAnAnswerComesWholeWithoutTheServerHoldingIt() throws {
        let servers = try DatabaseServers(count: 1)
        // 40,000 Tags of 300-byte labels: about 12 MB of rows, some 18 MB of answer.
        try insertTags(40_000, label: String(repeating: "l", count: 300), through: try servers.connect(0))
        let limit = 16_384
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--max-answer-bytes", "\(limit)"])
        let client = try WireClient(port: cached.port)
        // The connections to the database made and their statements prepared first.
        for _ in 0..<2 {
            let warm = try client.readStream(id: try client.sendStreamedFetch(["entity": "Tag", "limit": 200, "sort": [["key": "label"]]]))
            #expect(warm.last["result"] != nil, "\(warm.last)")
        }
        let before = try cached.peakMemory()
        for sort in [[], [["key": "label", "ascending": false]]] {
            let streamed = try client.readStream(id: try client.sendStreamedFetch(["entity": "Tag", "sort": sort, "explain": !sort.isEmpty]))
            let result = try #require(streamed.last["result"] as? [String: Any], "\(streamed.last)")
            let objects = streamed.parts.flatMap { $0["objects"] as? [[String: Any]] ?? [] } + (result["objects"] as? [[String: Any]] ?? [])
            #expect(result["count"] as? Int == 40_000 && objects.count == 40_000, "\(result["count"] ?? "no count"), \(objects.count) objects")
            #expect(Set(objects.compactMap { $0["id"] as? String }).count == 40_000)
            #expect(streamed.longestLine <= limit, "a line of \(streamed.longestLine) bytes")
            if !sort.isEmpty {
                // Sorted by PostgreSQL, in the one statement whose rows were sent on.
                let plan = result["plan"] as? [String: Any]
                #expect(plan?["access"] as? String == "sql" && plan?["sortedByIndex"] as? Bool == true && plan?["objectsExamined"] as? Int == 40_000,
                        "\(plan ?? [:])")
                let labels = objects.compactMap { ($0["values"] as? [String: Any])?["label"] as? String }
                #expect(labels == labels.sorted(by: >), "in the order asked for")
            }
        }
        let grown = try cached.peakMemory() - before
        #expect(grown < 8 << 20, "the server's peak memory grew by \(grown) bytes streaming 18 MB of answer")
        // The connections to the database serve the next fetches.
        let count = try client.result("fetch", ["entity": "Tag", "resultType": "count"])
        #expect(count["count"] as? Int == 40_000)
        let stats = try client.result("stats")
        #expect((stats["store"] as? [String: Any])?["objects"] as? Int ?? .max < 1_000, "the cache took the streamed objects: \(stats)")
    }

    @Test func aClientThatStopsReadingHoldsTheDatabasesRowsBackUntilItsConnectionCloses() throws {
        let servers = try DatabaseServers(count: 1)
        try insertTags(20_000, label: String(repeating: "s", count: 1_000), through: try servers.connect(0))
        let cached = try DatabaseServers.server(on: servers.database, arguments: ["--cache-bytes", "65536", "--idle-timeout", "3"])
        let stalled = try WireClient(port: cached.port)
        _ = try stalled.sendStreamedFetch(["entity": "Tag", "sort": [["key": "label"]]])
        // About 20 MB of rows: PostgreSQL's backend waits for the server to take them (ClientWrite)
        // while the server waits for its client.
        let cluster = try PostgresCluster.shared()
        let name = servers.database.lastPathComponent
        let waiting = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND state = 'active' AND wait_event = 'ClientWrite'"
        var held = false
        for _ in 0..<40 where !held {
            held = try cluster.psql(waiting, database: name).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
            if !held { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(held, "the database's backend was not held back by the stalled stream")
        // Meanwhile other clients are served.
        let other = try WireClient(port: cached.port)
        #expect(try other.result("fetch", ["entity": "Tag", "resultType": "count"])["count"] as? Int == 20_000)
        // The idle timeout closes the stalled connection; the statement ends with it.
        var ended = false
        for _ in 0..<100 where !ended {
            Thread.sleep(forTimeInterval: 0.1)
            let active = "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(name)' AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%\"Tag\"%'"
            ended = try cluster.psql(active, database: name).trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        }
        #expect(ended, "the stalled stream's statement still runs after its connection's idle timeout")
        let after = try WireClient(port: cached.port)
        #expect(try after.result("fetch", ["entity": "Tag", "resultType": "count"])["count"] as? Int == 20_000)
    }
}
