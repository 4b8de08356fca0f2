import Foundation
import ServerTestSupport
import Testing

/// Checkpoints while the server runs, against the real binary: past its threshold the journal
/// is folded into a new snapshot file from a published state while saves go on, so the
/// journal stays small; the commit numbers go on across restarts, and a killed server loses
/// nothing acknowledged.
@Suite struct ServerCheckpointTests {
    /// The store file's `"commitSequence"` (0 when absent).
    static func snapshotSequence(of url: URL) throws -> Int64 {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let metadata = object?["metadata"] as? [String: Any]
        return (metadata?["commitSequence"] as? NSNumber)?.int64Value ?? 0
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }

    @Test func pastItsThresholdTheJournalIsCheckpointedWhileSavesGoOn() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--journal-checkpoint-bytes", "4096"])
        let client = try server.connect()
        var lastSequence: Int64 = 0
        var largestJournal = 0
        for round in 0..<200 {
            let saved = try client.result("save", ["insert": [
                ["id": "s", "entity": "Song", "values": ["title": "song \(round) " + String(repeating: "x", count: 100), "plays": round]],
            ]])
            let sequence = try #require(saved["seq"].int)
            #expect(Int64(sequence) == lastSequence + 1, "commit numbers go up by one")
            lastSequence = Int64(sequence)
            largestJournal = max(largestJournal, Self.size(of: server.storeURL.path + "-journal"))
        }
        // Checkpoints happened (the snapshot moved on) and kept the journal near its threshold:
        // 200 records of ~300 bytes would be ~60 KB without them.
        let deadline = Date().addingTimeInterval(20)
        while try Self.snapshotSequence(of: server.storeURL) == 0 && Date() < deadline { usleep(10_000) }
        #expect(try Self.snapshotSequence(of: server.storeURL) > 0)
        #expect(largestJournal < 40_000, "the journal grew to \(largestJournal) bytes")
        #expect(server.log.contains("checkpoint written") || !server.log.contains("checkpoint failed"))

        // Killed: everything acknowledged is there, numbered as before.
        server.crash()
        let again = try ServerProcess(store: server.storeURL, keeping: directory)
        let hello = try again.connect().result("hello", [:])
        #expect(hello["seq"].int.map(Int64.init) == lastSequence)
        let count = try again.connect().result("fetch", ["entity": "Song", "resultType": "count"])
        #expect(count["count"].int == 200)
        // A clean stop checkpoints what is left: an empty journal, the snapshot at the last commit.
        _ = try again.stop()
        #expect(Self.size(of: server.storeURL.path + "-journal") == 0)
        #expect(try Self.snapshotSequence(of: server.storeURL) == lastSequence)
    }

    @Test func withoutAThresholdTheJournalIsCheckpointedOnlyAtAStop() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory, arguments: ["--journal-checkpoint-bytes", "0"])
        let client = try server.connect()
        for round in 0..<20 {
            _ = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "tag \(round)"]]]])
        }
        #expect(Self.size(of: server.storeURL.path + "-journal") > 0)
        #expect(try Self.snapshotSequence(of: server.storeURL) == 0)
        _ = try server.stop()
        #expect(Self.size(of: server.storeURL.path + "-journal") == 0)
        #expect(try Self.snapshotSequence(of: server.storeURL) == 20)
    }

    @Test func aNegativeThresholdIsRefused() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: (any Error).self) {
            _ = try ServerProcess(store: directory.file("store.json"), arguments: ["--journal-checkpoint-bytes", "-1"], timeout: 5)
        }
    }
}
