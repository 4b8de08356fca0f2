import Foundation
import ServerTestSupport
import Testing

/// Issue 37: a history file that cannot be written (a symlink planted at its name, rightly not
/// followed) is logged at each checkpoint, and `changes` then answers what is true.
@Suite struct HistoryFileFailureTests {
    @Test func aSymlinkAtTheHistoryFileIsLoggedByTheCheckpointAndNeverFollowed() throws {
        let directory = try TemporaryDirectory()
        let store = directory.url.appendingPathComponent("store.json")
        let target = directory.url.appendingPathComponent("elsewhere")
        try Data("untouched\n".utf8).write(to: target)
        try FileManager.default.createSymbolicLink(atPath: store.path + "-history", withDestinationPath: target.path)
        let server = try ServerProcess(store: store, arguments: ["--journal-checkpoint-bytes", "600"], keeping: directory)
        let writer = try server.connect()
        var seqs: [Int] = []
        for index in 0..<12 { seqs.append(try writer.insertTag("tag \(index)").seq) }
        let deadline = Date().addingTimeInterval(20)
        while !server.log.contains("not kept in the history file"), Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        let log = server.log
        #expect(log.contains("checkpoint written, but its records were not kept in the history file"), "\(log)")
        #expect(log.contains(store.path + "-history") && log.contains("symbolic link"), "\(log)")
        #expect(try String(contentsOf: target, encoding: .utf8) == "untouched\n", "the link is not followed")
        // While the server runs, its history is in memory: `changes` answers every commit.
        let pulled = try writer.result("changes", ["since": 0, "limit": 1000])
        #expect(pulled["changes"].array?.compactMap { $0["seq"].int } == seqs)
        #expect(try server.stop() == 0)
    }
}
