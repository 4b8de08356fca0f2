import Foundation
import PostgresStore
import PostgresTestSupport
import ServerTestSupport
import Testing

/// `docserver compact` on a database trims the history table (one row per save, never removed
/// otherwise) while servers run, keeping the newest `--history-commits`; a server that was
/// further behind says it cannot follow the database instead of skipping the removed commits.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct HistoryTrimTests {
    @Test func compactKeepsTheNewestHistoryRowsAndTheNextSaveIsNumberedAfterTheLast() throws {
        let pair = try DatabaseServers(count: 1)
        let client = try pair.connect(0)
        var numbers: [Int64] = []
        for index in 0..<6 {
            numbers.append(try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(index)"]]]]).seq)
        }
        let url = pair.database.absoluteString
        let compacted = try runDocServer(["compact", "--store", url, "--history-commits", "2"], timeout: 60)
        #expect(compacted.status == 0, "\(compacted.errors)")
        #expect(compacted.output.contains("history row(s) removed, commits \(numbers[4]) to \(numbers[5]) kept"), "\(compacted.output)")
        #expect(!compacted.output.contains("password") && !compacted.errors.contains("password"))

        // The server goes on, numbering after the last row, and the database still checks.
        let next = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "after"]]]])
        #expect(next.seq == numbers[5] + 1)
        let checked = try runDocServer(["check", "--store", url], timeout: 60)
        #expect(checked.status == 0, "\(checked.errors)")
        #expect(checked.output.contains("history 3 row(s), \(numbers[4]) to \(next.seq)"), "\(checked.output)")

        // Keeping 0 leaves the table as it is; a database without a store is refused, unchanged.
        let none = try runDocServer(["compact", "--store", url, "--history-commits", "0"], timeout: 60)
        #expect(none.status == 0 && none.output.contains("nothing to do"), "\(none.output) \(none.errors)")
        let empty = try PostgresCluster.newDatabase()
        let refused = try runDocServer(["compact", "--store", empty.absoluteString], timeout: 60)
        #expect(refused.status == 2, "\(refused.output) \(refused.errors)")
        #expect(refused.errors.contains("holds no graph store"), "\(refused.errors)")
    }

    @Test func aServerBehindATrimmedHistorySaysItCannotFollowAndRefusesSavesAndReadsOfLaterCommits() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        let first = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "seen by both"]]]])
        #expect(try b.result("get", ["ids": [try first.id("t")], "after": first.seq]).objects.first??["id"] as? String == (try first.id("t")))

        // B stops, loses its listening connection (notifications carry the commits: with it, B
        // would take them from there), A saves three times and the history is trimmed to the last commit.
        let paused = pair.servers[1].process.processIdentifier
        #expect(kill(paused, SIGSTOP) == 0)
        _ = try PostgresCluster.shared().psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                                              + "AND application_name = '\(PostgresHistory.listenerName)'", database: pair.database.lastPathComponent)
        var last = first
        for index in 0..<3 {
            last = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "missed \(index)"]]]])
        }
        let compacted = try runDocServer(["compact", "--store", pair.database.absoluteString, "--history-commits", "1"], timeout: 60)
        #expect(kill(paused, SIGCONT) == 0)
        #expect(compacted.status == 0, "\(compacted.errors)")

        // B does not skip the removed commits: a read naming the last one is refused, the log says why, once.
        let answer = try b.call("get", ["ids": [try last.id("t")], "after": last.seq])
        #expect(answer.errorCode == -32010, "\(answer)")
        let data = (answer["error"] as? [String: Any])?["data"] as? [String: Any] ?? [:]
        #expect((data["applied"] as? NSNumber)?.int64Value == first.seq, "\(answer)")
        _ = try b.call("get", ["ids": [try last.id("t")], "after": last.seq])
        let log = pair.servers[1].log
        #expect(log.contains("no longer holds commits \(first.seq + 1) to \(last.seq - 1)"), "\(log.suffix(2000))")
        #expect(log.components(separatedBy: "no longer holds commits").count == 2, "logged more than once: \(log.suffix(2000))")
        // B refuses saves (it would answer them with numbers it cannot know); A goes on.
        let refusedSave = try b.call("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "on b"]]]])
        #expect(refusedSave.errorCode == -32006, "\(refusedSave)")
        #expect(((refusedSave["error"] as? [String: Any])?["message"] as? String)?.contains("restart it") == true, "\(refusedSave)")
        #expect(try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "later"]]]]).seq == last.seq + 1)
    }
}
