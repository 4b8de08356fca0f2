import Foundation
import ServerTestSupport
import Testing

/// `GET /metrics`, the `stats` method and the slow log, read from a real `docserver serve` after
/// real requests: each figure moves by exactly what was done.
@Suite struct MetricsAndStatsTests {
    static let saveOK = #"method="save",outcome="ok""#

    @Test func theSaveCounterCommitsAndSeqGoUpByExactlyTheSavesMade() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try HTTPPortTests.start(in: directory)
        let client = try server.connect()
        _ = try client.result("ping")
        let before = try http("/metrics", port: port)
        #expect(before.status == 200)
        #expect(before.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        let savesBefore = before.metric("docserver_requests_total", Self.saveOK) ?? 0
        let commitsBefore = before.metric("docserver_commits_total") ?? 0
        let syncsBefore = before.metric("docserver_journal_fdatasync_seconds_count") ?? 0
        for index in 0..<7 {
            _ = try client.result("save", ["insert": [["id": "t", "entity": "Artist", "values": ["name": "Artist \(index)"]]]])
        }
        _ = try client.call("save", ["insert": [["id": "t", "entity": "NoSuchEntity", "values": [:]]]])  // refused
        let after = try http("/metrics", port: port)
        #expect(after.metric("docserver_requests_total", Self.saveOK) == savesBefore + 7)
        #expect(after.metric("docserver_requests_total", #"method="save",outcome="error""#) == 1)
        #expect(after.metric("docserver_requests_total", #"method="ping",outcome="ok""#) == 1)
        #expect(after.metric("docserver_commits_total") == commitsBefore + 7)
        #expect(after.metric("docserver_commit_seq") == 7)
        #expect(after.metric("docserver_objects") == 7)
        #expect(after.metric("docserver_connections") == 1)
        // One durable append per commit here (the saves came one after another).
        #expect(after.metric("docserver_journal_fdatasync_seconds_count") == syncsBefore + 7)
        #expect(after.metric("docserver_group_commit_saves_count") == 7)
        #expect(after.metric("docserver_request_duration_seconds_count", Self.saveOK) == savesBefore + 7)
        #expect(after.metric("docserver_request_duration_seconds_bucket", Self.saveOK + #",le="+Inf""#) == savesBefore + 7)
        #expect((after.metric("docserver_journal_bytes") ?? 0) > 0)
        #expect(after.metric("docserver_ready") == 1)
        try server.stop()
    }

    @Test func subscriptionsNotificationsAndGetsShowInMetricsAndStats() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try HTTPPortTests.start(in: directory)
        let watcher = try server.connect()
        _ = try watcher.result("subscribe", ["entity": "Artist"])
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        _ = try watcher.readLine()  // the notification of the save
        _ = try client.result("get", ["ids": [data["a1"], data["a2"]]])
        _ = try client.result("fetch", ["entity": "Song", "predicate": "plays > 3"])
        let metrics = try http("/metrics", port: port)
        #expect(metrics.metric("docserver_subscriptions") == 1)
        #expect(metrics.metric("docserver_notifications_total") == 1)
        #expect(metrics.metric("docserver_requests_total", #"method="get",outcome="ok""#) == 1)
        #expect(metrics.metric("docserver_requests_total", #"method="fetch",outcome="ok""#) == 1)
        #expect(metrics.metric("docserver_connections") == 2)

        let stats = try client.result("stats")
        #expect(stats.keys == ["cache", "clients", "requests", "server", "slowlog", "store"])
        #expect(stats["cache"]["bounded"].bool == false)
        #expect(stats["store"]["seq"].int == 1)
        #expect(stats["store"]["objects"].int == 10)
        #expect(stats["store"]["commits"].int == 1)
        #expect((stats["store"]["journalBytes"].int ?? 0) > 0)
        #expect(stats["clients"]["connections"].int == 2)
        #expect(stats["clients"]["subscriptions"].int == 1)
        #expect(stats["clients"]["notifications"].int == 1)
        #expect(stats["requests"]["save"]["ok"].int == 1)
        #expect(stats["requests"]["get"]["ok"].int == 1)
        #expect(stats["requests"]["subscribe"]["ok"].int == 1)
        #expect(stats["server"]["ready"].value as? Bool == true)
        #expect(stats["slowlog"]["thresholdMilliseconds"].int == 100)
        try server.stop()
    }

    @Test func checkpointsShowInMetricsAndStatsAndTheJournalShrinks() throws {
        let directory = try TemporaryDirectory()
        let (server, port) = try HTTPPortTests.start(in: directory, arguments: ["--journal-checkpoint-bytes", "2048"])
        let client = try server.connect()
        for index in 0..<20 {
            _ = try client.result("save", ["insert": [["id": "t", "entity": "Artist", "values": ["name": String(repeating: "n", count: 200) + "\(index)"]]]])
        }
        var metrics = try http("/metrics", port: port)
        let deadline = Date().addingTimeInterval(10)
        while (metrics.metric("docserver_checkpoint_duration_seconds_count") ?? 0) < 1, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            metrics = try http("/metrics", port: port)
        }
        #expect((metrics.metric("docserver_checkpoint_duration_seconds_count") ?? 0) >= 1)
        // Cut back by the checkpoints: on a busy machine the first one may end with many records
        // after it; a journal past the threshold checkpoints again after the next commit.
        var extra = 0
        let shrinking = Date().addingTimeInterval(10)
        while (metrics.metric("docserver_journal_bytes") ?? .infinity) >= 20 * 200, Date() < shrinking {
            extra += 1
            _ = try client.result("save", ["insert": [["id": "t", "entity": "Artist", "values": ["name": "extra \(extra)"]]]])
            Thread.sleep(forTimeInterval: 0.05)
            metrics = try http("/metrics", port: port)
        }
        #expect((metrics.metric("docserver_journal_bytes") ?? .infinity) < 20 * 200)
        #expect((try client.result("stats")["store"]["checkpoints"].int ?? 0) >= 1)
        try server.stop()
    }

    @Test func statsWorksWithoutTheHttpPort() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try SampleData.insert(through: client)
        let stats = try client.result("stats")
        #expect(stats["store"]["seq"].int == 1)
        #expect(stats["requests"]["save"]["ok"].int == 1)
        let refused = try client.call("stats", ["verbose": true])
        #expect(refused["error"]["code"].int == -32602)
        try server.stop()
    }

    @Test func theSlowLogKeepsMethodEntityPredicateAndDurationAndResets() throws {
        let directory = try TemporaryDirectory()
        // 0 ms: every request is slow.
        let server = try ServerProcess(in: directory, arguments: ["--slow-request-ms", "0"])
        let client = try server.connect()
        let data = try SampleData.insert(through: client)
        _ = try client.result("fetch", ["entity": "Song", "predicate": "title BEGINSWITH[c] 'a'"])
        _ = try client.result("get", ["ids": [data["s1"]]])
        let log = try client.result("slowlog")
        #expect(log["thresholdMilliseconds"].int == 0)
        let entries = try #require(log["entries"].array)
        #expect(entries.map { $0["method"].string } == ["save", "fetch", "get"])
        #expect(entries.map { $0["id"].int } == [1, 2, 3])
        #expect(entries[0]["entity"].string == "Artist,Album,Song")
        #expect(entries[1]["entity"].string == "Song")
        #expect(entries[1]["predicate"].string == "title BEGINSWITH[c] 'a'")
        #expect(entries[2]["entity"].string == "Song")
        #expect(entries.allSatisfy { ($0["milliseconds"].double ?? -1) >= 0 && ($0["timestamp"].int ?? 0) > 1_700_000_000_000 })
        #expect(server.log.contains("slow request"))

        let reset = try client.result("slowlog", ["reset": true])
        #expect(reset["entries"].array?.count == 4)  // the slowlog call itself was slow too
        let empty = try client.result("slowlog")
        #expect(empty["entries"].array?.map { $0["method"].string } == ["slowlog"])  // the reset call
        #expect(empty["total"].int == 5)
        try server.stop()
    }

    @Test func theSlowLogKeepsTheLast128() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--slow-request-ms", "0"])
        let client = try server.connect()
        for _ in 0..<140 { _ = try client.result("ping") }
        let log = try client.result("slowlog")
        let entries = try #require(log["entries"].array)
        #expect(entries.count == 128)
        #expect(entries.first?["id"].int == 13)
        #expect(entries.last?["id"].int == 140)
        #expect(log["total"].int == 140)
        try server.stop()
    }

    @Test func aFastServerKeepsNothingInTheSlowLogAtTheDefaultThreshold() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, environment: ["DOCSERVER_SLOW_REQUEST_MS": "60000"])
        let client = try server.connect()
        _ = try SampleData.insert(through: client)
        let log = try client.result("slowlog")
        #expect(log["thresholdMilliseconds"].int == 60000)
        #expect(log["entries"].array?.isEmpty == true)
        try server.stop()
    }
}
