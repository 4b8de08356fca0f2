import Foundation
import PostgresTestSupport
import ServerTestSupport
import Testing

/// A server over a shared database commits the saves that arrive together in one transaction
/// (a group commit, as over a file): a conflict with another server's save, found only when the
/// group is written, fails the saves that named the object and no other.
@Suite(.serialized, .enabled(if: PostgresCluster.isInstalled, PostgresCluster.skipMessage))
struct GroupCommitTests {
    @Test func aConflictWithAnotherServerFailsOnlyTheSavesOfThatObjectAndNoUpdateIsLost() throws {
        let pair = try DatabaseServers(count: 2)
        let songs = 8
        let seeded = try pair.connect(0).result("save", ["insert": (0..<songs).map {
            ["id": "s\($0)", "entity": "Song", "values": ["title": "song \($0)", "plays": 0]]
        }])
        let ids = try (0..<songs).map { try seeded.id("s\($0)") }
        // Eight clients of server B each add 1 to the plays of their own song; a client of server
        // A adds to song 0 as well. Only saves of song 0 may conflict.
        let ledger = SaveLedger()
        let ports = pair.servers.map(\.port), first = seeded.seq
        let stop = Date().addingTimeInterval(4)
        // A thread per client (concurrentPerform would run only as many at once as there are cores).
        let done = DispatchGroup()
        for worker in 0...songs {
            done.enter()
            Thread {
                defer { done.leave() }
                let song = worker == songs ? 0 : worker
                guard let client = try? WireClient(port: ports[worker == songs ? 0 : 1]) else { return ledger.record(worker, song, "no connection") }
                var after = first
                while Date() < stop {
                    guard let got = try? client.result("get", ["ids": [ids[song]], "after": after]),
                          let object = got.objects.first ?? nil, let version = object["version"] as? Int,
                          let plays = (object["values"] as? [String: Any])?["plays"] as? Int else { return ledger.record(worker, song, "unreadable get") }
                    guard let answer = try? client.call("save", ["update": [["id": ids[song], "version": version, "values": ["plays": plays + 1]]]]) else {
                        return ledger.record(worker, song, "no answer")
                    }
                    if let result = answer["result"] as? [String: Any] {
                        after = result.seq
                        ledger.record(worker, song, nil, seq: result.seq)
                    } else {
                        ledger.record(worker, song, answer.errorCode == -32001 ? "conflict" : "error \(answer)")
                    }
                }
            }.start()
        }
        done.wait()
        let (saved, failures, latest) = ledger.summary
        let wrong = failures.filter { $0.song != 0 || $0.outcome != "conflict" }
        #expect(wrong.isEmpty, "saves that failed for another save's conflict, or for another reason: \(wrong.prefix(5))")
        #expect(saved.count == songs && saved.values.reduce(0, +) >= 30, "too few saves to mean anything: \(saved)")
        // Every acknowledged increment is there, read through either server.
        let reader = try pair.connect(1)
        let objects = try reader.result("get", ["ids": ids, "after": latest]).objects
        for (index, object) in objects.enumerated() {
            let plays = (object?["values"] as? [String: Any])?["plays"] as? Int
            #expect(plays == saved[index, default: 0], "song \(index): plays \(String(describing: plays)), acknowledged \(saved[index, default: 0])")
        }
    }
}

/// The outcomes of the saves of several threads: per song, how many were acknowledged.
final class SaveLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var saved: [Int: Int] = [:]
    private var failures: [(worker: Int, song: Int, outcome: String)] = []
    private var latest: Int64 = 0

    /// A save by `worker` of `song`: acknowledged with `seq` (`failure` nil), or failed.
    func record(_ worker: Int, _ song: Int, _ failure: String?, seq: Int64 = 0) {
        lock.withLock {
            if let failure { failures.append((worker, song, failure)) } else { saved[song, default: 0] += 1 }
            latest = max(latest, seq)
        }
    }

    /// Acknowledged saves per song, the failures, and the last `seq` acknowledged.
    var summary: (saved: [Int: Int], failures: [(worker: Int, song: Int, outcome: String)], latest: Int64) {
        lock.withLock { (saved, failures, latest) }
    }
}
