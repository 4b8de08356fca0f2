import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// Several `docserver` processes serving one PostgreSQL database: each sees the others'
/// saves, conflicts and delete rules hold across them, as on one server.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct MultiServerTests {
    @Test func aSaveOnOneServerIsSeenByGetAndFetchOnTheOtherWhenTheyNameItsSeqAsAfter() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        for round in 0..<20 {
            let saved = try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(round)"]]]])
            let id = try saved.id("t")
            let got = try b.result("get", ["ids": [id], "after": saved.seq])
            #expect(got.objects.first??["values"].flatMap { ($0 as? [String: Any])?["label"] as? String } == "tag \(round)")
            let fetched = try b.result("fetch", ["entity": "Tag", "resultType": "count", "after": saved.seq])
            #expect(fetched["count"] as? Int == round + 1)
            let updated = try b.result("save", ["update": [["id": id, "version": 1, "values": ["label": "changed \(round)"]]]])
            #expect(updated.seq > saved.seq)
            let back = try a.result("fetch", ["entity": "Tag", "predicate": "label == %@", "arguments": ["changed \(round)"], "after": updated.seq])
            #expect(back.objects.count == 1)
        }
    }

    @Test func theSameObjectSavedThroughBothServersGivesOneConflict() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        let song = try a.result("save", ["insert": [["id": "s", "entity": "Song", "values": ["title": "One"]]]]).id("s")
        // One after the other: the second server reads the new version from the database.
        _ = try a.result("save", ["update": [["id": song, "version": 1, "values": ["plays": 1]]]])
        let lost = try b.call("save", ["update": [["id": song, "version": 1, "values": ["plays": 2]]]])
        #expect(lost.errorCode == -32001)
        // At the same time: exactly one of each pair wins, the other gets a conflict; never a
        // lost update.
        var version = 2
        for round in 0..<10 {
            let clients = [try pair.connect(0), try pair.connect(1)]
            let answers = Answers(), expected = version
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let answer = try? clients[index].call("save", ["update": [["id": song, "version": expected, "values": ["plays": 1000 + 10 * round + index]]]])
                answers.append(answer?.errorCode, seq: (answer?["result"] as? [String: Any])?["seq"] as? Int)
            }
            let codes = answers.values
            #expect(codes.filter { $0 == nil }.count == 1, "round \(round): \(codes)")
            #expect(codes.filter { $0 == -32001 }.count == 1, "round \(round): \(codes)")
            version += 1
            let now = try a.result("get", ["ids": [song], "after": answers.latestSeq]).objects.first??["version"] as? Int
            #expect(now == version)
        }
    }

    @Test func deleteRulesHoldAcrossServers() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0), b = try pair.connect(1)
        let saved = try a.result("save", ["insert": [
            ["id": "ar", "entity": "Artist", "values": ["name": "Miles"]],
            ["id": "al", "entity": "Album", "values": ["title": "Kind of Blue", "artist": "ar", "songs": ["s1", "s2"]]],
            ["id": "s1", "entity": "Song", "values": ["title": "So What"]],
            ["id": "s2", "entity": "Song", "values": ["title": "Blue in Green"]],
        ]])
        let artist = try saved.id("ar"), album = try saved.id("al"), songs = [try saved.id("s1"), try saved.id("s2")]
        // deny: the artist has an album, on whichever server it is deleted.
        let denied = try b.call("save", ["delete": [["id": artist, "version": 1]]])
        #expect(denied.errorCode == -32002)
        // cascade: deleting the album on B deletes its songs, and A sees them gone.
        let deleted = try b.result("save", ["delete": [["id": album, "version": 1]]])
        #expect(Set(deleted["deleted"] as? [String] ?? []) == Set(songs + [album]))
        let got = try a.result("get", ["ids": songs + [album], "after": deleted.seq])
        #expect(Set(got["missing"] as? [String] ?? []) == Set(songs + [album]))
        // nullify: the artist lost the album on A too, and may be deleted there now.
        let artistNow = try a.result("get", ["ids": [artist]]).objects.first??["values"] as? [String: Any]
        #expect((artistNow?["albums"] as? [Any])?.isEmpty == true)
        let version = try a.result("get", ["ids": [artist]]).objects.first??["version"] as? Int ?? 0
        let gone = try a.result("save", ["delete": [["id": artist, "version": version]]])
        #expect(try b.result("fetch", ["entity": "Artist", "resultType": "count", "after": gone.seq])["count"] as? Int == 0)
    }

    @Test func aServerRefusesADatabaseURLItCannotReadOrReachAndMigrationOfADatabase() throws {
        let result = try runDocServer(["serve", "--port", "0", "--store", "postgresql://127.0.0.1:1/db"], timeout: 30)
        #expect(result.status == 2)
        #expect(result.errors.contains("names no user"), "\(result.errors)")
        #expect(!FileManager.default.fileExists(atPath: "postgresql:"), "taken as a file path")

        let unreachable = try runDocServer(["serve", "--port", "0", "--store", "postgresql://graph:secret@127.0.0.1:1/db"], timeout: 30)
        #expect(unreachable.status == 2)
        #expect(unreachable.errors.contains("cannot connect to PostgreSQL at postgresql://graph@127.0.0.1:1/db"), "\(unreachable.errors)")
        #expect(!unreachable.errors.contains("secret"))

        let migrating = try runDocServer(["serve", "--port", "0", "--migrate", "--store", "postgresql://graph@127.0.0.1:1/db"], timeout: 30)
        #expect(migrating.status == 2)
        #expect(migrating.errors.contains("--migrate and --from-model work on store files only"), "\(migrating.errors)")
    }
}

/// Answers collected from several threads.
final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Int?] = []
    private var seqs: [Int] = []

    /// An answer's error code (nil: none), and its `seq` when it was a save's result.
    func append(_ code: Int?, seq: Int? = nil) {
        lock.withLock {
            collected.append(code)
            if let seq { seqs.append(seq) }
        }
    }
    var values: [Int?] { lock.withLock { collected } }
    /// The largest `seq` answered (0: none).
    var latestSeq: Int { lock.withLock { seqs.max() ?? 0 } }
}

/// The change feed across servers: commits made through one server reach subscriptions on
/// another, in commit order, with numbers a subscriber resumes from on any server.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct MultiServerFeedTests {
    @Test func aSubscriberOnOneServerReceivesTheSavesMadeThroughTheOthersInCommitOrder() throws {
        let servers = try DatabaseServers(count: 3)
        let subscriber = try servers.connect(1)
        _ = try subscriber.result("hello", ["client": "watcher"])
        _ = try subscriber.result("subscribe", ["entity": "Tag"])
        let writers = [try servers.connect(0), try servers.connect(2)]
        for (index, writer) in writers.enumerated() { _ = try writer.result("hello", ["client": "writer \(index)"]) }
        var saved: [(seq: Int64, label: String)] = []
        for round in 0..<10 {
            let label = "tag \(round)"
            let answer = try writers[round % 2].result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": label]]]])
            saved.append((answer.seq, label))
        }
        var received: [(seq: Int64, label: String, author: String?)] = []
        while received.count < saved.count {
            let note = try subscriber.nextNotification()
            let inserted = note["inserted"] as? [[String: Any]] ?? []
            let label = (inserted.first?["values"] as? [String: Any])?["label"] as? String ?? "?"
            received.append(((note["seq"] as? NSNumber)?.int64Value ?? -1, label, note["author"] as? String))
        }
        #expect(received.map(\.seq) == saved.map(\.seq))
        #expect(received.map(\.label) == saved.map(\.label))
        #expect(received.map(\.author) == (0..<10).map { "writer \($0 % 2)" })
        #expect(saved.map(\.seq) == (saved[0].seq..<saved[0].seq + 10).map { $0 })
    }

    /// Saves through `writer` that take Tags in and out of `label BEGINSWITH "hot"`: the commits
    /// a live query of it tells (`seq`, kind, IDs), in order; one save in between changes an
    /// object that matches neither before nor after (nothing to tell).
    private func savesInAndOutOfHot(through writer: WireClient) throws -> [(seq: Int64, kind: String, ids: [String])] {
        func save(_ params: [String: Any]) throws -> [String: Any] { try writer.result("save", params) }
        let first = try save(["insert": [["id": "t", "entity": "Tag", "values": ["label": "hot 1"]]]])
        let one = try first.id("t")
        let second = try save(["insert": [["id": "t", "entity": "Tag", "values": ["label": "cold 2"]]]])
        let two = try second.id("t")
        _ = try save(["update": [["id": two, "version": 1, "values": ["label": "cold 2b"]]]])
        let entered = try save(["update": [["id": two, "version": 2, "values": ["label": "hot 2"]]]])
        let changed = try save(["update": [["id": one, "version": 1, "values": ["label": "hot 1b"]]]])
        let left = try save(["update": [["id": one, "version": 2, "values": ["label": "cold 1"]]]])
        let gone = try save(["delete": [["id": two, "version": 3]]])
        return [(first.seq, "inserted", [one]), (entered.seq, "inserted", [two]), (changed.seq, "updated", [one]),
                (left.seq, "removed", [one]), (gone.seq, "deleted", [two])]
    }

    /// The next `count` records of `client`'s live query notifications (`seq`, kind, IDs).
    private func received(_ count: Int, by client: WireClient) throws -> [(seq: Int64, kind: String, ids: [String])] {
        var received: [(seq: Int64, kind: String, ids: [String])] = []
        while received.count < count {
            let note = try client.nextNotification()
            let seq = (note["seq"] as? NSNumber)?.int64Value ?? -1
            for kind in ["inserted", "updated"] {
                let objects = note[kind] as? [[String: Any]] ?? []
                if !objects.isEmpty { received.append((seq, kind, objects.compactMap { $0["id"] as? String })) }
            }
            for kind in ["removed", "deleted"] {
                let ids = note[kind] as? [String] ?? []
                if !ids.isEmpty { received.append((seq, kind, ids)) }
            }
        }
        return received
    }

    @Test func aLiveQueryOnOneServerFollowsTheSavesMadeThroughAnother() throws {
        // Run again with a cache of 1 byte (scripts/test.sh): the watching server then holds
        // none of the objects, and judges each commit on the values the history row recorded
        // before it and the objects read after it.
        let servers = try DatabaseServers(count: 2)
        let writer = try servers.connect(0), watcher = try servers.connect(1)
        _ = try watcher.result("subscribe", ["entity": "Tag", "predicate": "label BEGINSWITH \"hot\""])
        let expected = try savesInAndOutOfHot(through: writer)
        let got = try received(5, by: watcher)
        #expect(got.map(\.seq) == expected.map(\.seq))
        #expect(got.map(\.ids) == expected.map(\.ids))
        #expect(got.map(\.kind) == expected.map(\.kind))
    }

    @Test func aServerStartedAfterTheSavesReplaysThemToALiveQueryAsTheyWere() throws {
        let servers = try DatabaseServers(count: 1)
        let writer = try servers.connect(0)
        let start = try writer.result("hello", [:])
        let expected = try savesInAndOutOfHot(through: writer)
        // A server started now knows the commits only from the history table's rows.
        let late = try DatabaseServers.server(on: servers.database)
        let watcher = try WireClient(port: late.port)
        _ = try watcher.result("subscribe", ["entity": "Tag", "predicate": "label BEGINSWITH \"hot\"",
                                             "since": (start["seq"] as? NSNumber)?.int64Value ?? 0])
        let got = try received(5, by: watcher)
        #expect(got.map(\.seq) == expected.map(\.seq))
        #expect(got.map(\.ids) == expected.map(\.ids))
        #expect(got.map(\.kind) == expected.map(\.kind))
    }

    @Test func aSubscriptionResumesWithSinceOnAnotherServer() throws {
        let pair = try DatabaseServers(count: 2)
        let a = try pair.connect(0)
        var numbers: [Int64] = []
        for round in 0..<6 {
            numbers.append(try a.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(round)"]]]]).seq)
        }
        // A subscriber that saw up to the third commit on A resumes on B.
        let b = try pair.connect(1)
        let started = try b.result("subscribe", ["entity": "Tag", "since": numbers[2]])
        #expect((started["seq"] as? NSNumber)?.int64Value == numbers[2])
        var seen: [Int64] = []
        while seen.count < 3 { seen.append((try b.nextNotification()["seq"] as? NSNumber)?.int64Value ?? -1) }
        #expect(seen == Array(numbers[3...]))
        // And a server started after the commits answers `since` from the database's history too.
        let late = try DatabaseServers.server(on: pair.database)
        let c = try WireClient(port: late.port)
        let pulled = try c.result("changes", ["since": numbers[0]])
        let records = pulled["changes"] as? [[String: Any]] ?? []
        #expect(records.compactMap { ($0["seq"] as? NSNumber)?.int64Value } == Array(numbers[1...]), "\(pulled)")
    }
}
