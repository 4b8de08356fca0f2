import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// Reads over a shared database answer from memory without a query (docs/POSTGRESQL.md,
/// Consistency): a server takes the other servers' commits as their notifications arrive, and a
/// `get` or `fetch` that names a save's `seq` as `after` is answered only once it holds it.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct ReadAfterTests {
    @Test func everyReadOnAnotherServerThatNamesTheSavesSeqSeesTheSave() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        var misses: [Int] = []
        for round in 0..<300 {
            let saved = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(round)"]]]])
            let got = try b.result(round % 2 == 0 ? "get" : "fetch", round % 2 == 0
                ? ["ids": [try saved.id("t")], "after": saved.seq]
                : ["entity": "Tag", "predicate": "label == %@", "arguments": ["tag \(round)"], "after": saved.seq])
            if got.objects.first??["id"] as? String != (try saved.id("t")) { misses.append(round) }
        }
        #expect(misses.isEmpty, "reads that missed the save they named: \(misses)")
    }

    @Test func aReadWithoutAfterSeesAnotherServersSaveOnceItsNotificationArrives() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        let saved = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "seen"]]]])
        let id = try saved.id("t")
        let deadline = Date().addingTimeInterval(5)
        var seen = false
        while !seen && Date() < deadline {
            seen = try b.result("get", ["ids": [id]]).objects.first??["id"] as? String == id
            if !seen { Thread.sleep(forTimeInterval: 0.005) }
        }
        #expect(seen, "the other server never took the commit without a read naming it")
    }

    @Test func anAfterNoServerHasMadeIsAnsweredNotCaughtUpAtOnce() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        let saved = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "x"]]]])
        let started = Date()
        let answer = try b.call("get", ["ids": [try saved.id("t")], "after": saved.seq + 1000])
        #expect(Date().timeIntervalSince(started) < 0.9, "it waited for a commit the database does not hold")
        #expect(answer.errorCode == -32010)
        let error = answer["error"] as? [String: Any] ?? [:]
        let data = error["data"] as? [String: Any] ?? [:]
        #expect((data["after"] as? NSNumber)?.int64Value == saved.seq + 1000)
        #expect((data["applied"] as? NSNumber)?.int64Value == saved.seq, "it caught up with the commit that exists: \(error)")
        #expect((error["message"] as? String)?.contains("holds no such commit") == true, "\(error)")
        // The connection goes on, and a later read naming the real commit is answered.
        #expect(try b.result("fetch", ["entity": "Tag", "resultType": "count", "after": saved.seq])["count"] as? Int == 1)
    }
}
