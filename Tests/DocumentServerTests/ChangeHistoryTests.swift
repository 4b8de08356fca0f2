import Foundation
import ServerTestSupport
import Testing

/// `since` and `changes`: the history of commits, its seam with live commits, its survival
/// across a restart and its retention.
@Suite struct ChangeHistoryTests {
    @Test func subscribeSinceSendsEveryCommitAfterItOnceThenLiveOnes() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let subscriber = try server.connect(), writer = try server.connect()
        var seqs: [Int] = []
        for index in 0..<5 { seqs.append(try writer.insertTag("before \(index)").seq) }
        let started = try subscriber.result("subscribe", ["entity": "Tag", "since": seqs[1]])
        #expect(started["seq"].int == seqs[1])
        // Saves while the history is sent: each commit once, in order, no gap at the seam.
        for index in 0..<5 { seqs.append(try writer.insertTag("after \(index)").seq) }
        let notes = try subscriber.notifications(8)
        #expect(notes.compactMap { $0["params"]["seq"].int } == Array(seqs[2...]))
        #expect(try subscriber.staysSilent(for: 0.3))
        try server.stop()
    }

    @Test func sinceResumesAcrossARestartWithoutGapOrDuplicate() throws {
        let directory = try TemporaryDirectory()
        var server = try ServerProcess(in: directory, arguments: ["--journal-checkpoint-bytes", "600"])
        var writer = try server.connect()
        var seqs: [Int] = []
        var labels: [String] = []
        for index in 0..<12 {
            labels.append("tag \(index)")
            seqs.append(try writer.insertTag(labels[index]).seq)  // checkpoints run meanwhile (600 bytes)
        }
        #expect(try server.stop() == 0)
        server = try ServerProcess(in: directory, arguments: ["--journal-checkpoint-bytes", "600"])
        writer = try server.connect()
        let subscriber = try server.connect()
        _ = try subscriber.result("subscribe", ["since": seqs[3]])
        labels.append("after restart")
        seqs.append(try writer.insertTag("after restart").seq)
        let notes = try subscriber.notifications(9)
        #expect(notes.compactMap { $0["params"]["seq"].int } == Array(seqs[4...]))
        #expect(notes.compactMap { $0["params"]["inserted"][0]["values"]["label"].string } == Array(labels[4...]))
        let pulled = try writer.result("changes", ["since": 0, "limit": 1000])
        #expect(pulled["changes"].array?.compactMap { $0["seq"].int } == seqs, "every commit after a restart and checkpoints")
        try server.stop()
    }

    @Test func aSinceOlderThanTheHistoryIsRefusedWithTheOldestAccepted() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--history-commits", "3"])
        let client = try server.connect()
        var seqs: [Int] = []
        for index in 0..<6 { seqs.append(try client.insertTag("t\(index)").seq) }
        let refused = try client.call("subscribe", ["since": seqs[1]])
        #expect(refused["error"]["code"].int == -32009)
        #expect(refused["error"]["data"]["oldest"].int == seqs[2])
        #expect(refused["error"]["message"].string?.contains("fetch") == true)
        #expect(try client.call("changes", ["since": 0])["error"]["code"].int == -32009)
        let oldest = try client.result("changes", ["since": seqs[2]])
        #expect(oldest["changes"].count == 3)
        try server.stop()
    }

    @Test func changesPagesThroughTheHistoryWithSeqAndMore() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        let client = try server.connect()
        _ = try client.result("hello", ["client": "puller"])
        var seqs: [Int] = []
        for index in 0..<5 { seqs.append(try client.insertTag("t\(index)").seq) }
        let first = try client.result("changes", ["since": 0, "limit": 2, "includeValues": false])
        #expect(first["changes"].array?.compactMap { $0["seq"].int } == Array(seqs[0..<2]))
        #expect(first["more"].bool == true)
        #expect(first["changes"][0]["author"].string == "puller")
        #expect(first["changes"][0]["inserted"][0]["values"].isMissing)
        #expect(first["changes"][0]["removed"].isMissing)
        let rest = try client.result("changes", ["since": try #require(first["seq"].int), "limit": 10])
        #expect(rest["changes"].array?.compactMap { $0["seq"].int } == Array(seqs[2...]))
        #expect(rest["more"].bool == false)
        #expect(rest["seq"].int == seqs.last)
        let songs = try client.result("changes", ["since": 0, "entity": "Song"])
        #expect(songs["changes"].count == 0 && songs["seq"].int == seqs.last && songs["more"].bool == false)
        try server.stop()
    }
}

/// A subscriber that does not read: its subscription ends with `resync`, nobody else waits.
@Suite struct SlowSubscriberTests {
    @Test func aSubscriberThatDoesNotReadGetsResyncWhileOthersAndSavesGoOn() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--subscription-buffer-bytes", "65536"])
        let stalled = try server.connect(), reading = try server.connect(), writer = try server.connect()
        _ = try stalled.result("subscribe", [:])
        _ = try reading.result("subscribe", ["entity": "Tag"])
        let label = String(repeating: "x", count: 100_000)
        var last = 0
        // Enough notification bytes (30 MB) to fill the socket buffers and the subscription's buffer.
        for index in 0..<300 {
            last = try writer.insertTag("\(label) \(index)").seq
            _ = try reading.readLine()
        }
        // The stalled client reads now: notifications, then one resync, then nothing of it.
        var seen: [Int] = []
        var resync: JSON?
        while resync == nil {
            let message = try JSON(parsing: stalled.readLine())
            if message["method"].string == "resync" { resync = message } else { seen.append(message["params"]["seq"].int ?? -1) }
        }
        let params = try #require(resync)["params"]
        #expect(params["subscription"].int == 1)
        #expect(params["seq"].int == seen.last, "the last seq delivered")
        #expect(seen.count < 300, "the subscription ended before every commit was queued")
        #expect(seen == Array(seen.indices).map { seen[0] + $0 }, "in order, without a gap")
        #expect(try stalled.staysSilent(for: 0.3))
        #expect(try stalled.result("ping") .string == "pong", "the connection stays open")
        #expect(last > 0)
        try server.stop()
    }
}
