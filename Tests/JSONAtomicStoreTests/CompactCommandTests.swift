import Foundation
import GraphCore
import ServerTestSupport
import Testing
@testable import JSONAtomicStore

/// `docserver check` reads snapshot and journal; `docserver compact` folds the journal into
/// the snapshot of a store no server holds. Run as the built binary.
struct CompactCommandTests {
    let directory: JSONAtomicStoreTests.TemporaryDirectory
    let url: URL

    init() throws {
        directory = try JSONAtomicStoreTests.TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// A store with `count` saves in its journal, left as a stopped process leaves it.
    func makeStore(saves count: Int) throws {
        let open = try OpenStore(url, model: try ObjectModel(contentsOf: CrashFiles.model),
                                 values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        let counter = try context.insert("Counter")
        for seq in 1...count {
            let entry = try context.insert("Entry", values: ["seq": .int(Int64(seq)), "payload": "p", "at": .date(Date())])
            try entry.setObject(counter, forKey: "counter")
            try counter.set("value", Int64(seq))
            try context.save()
        }
        open.store.journal.close()
    }

    func run(_ arguments: [String]) throws -> CommandResult {
        try runDocServer(arguments + ["--model", CrashFiles.model.path, "--store", url.path])
    }

    @Test func checkReplaysTheJournalAndReportsATornLastRecord() throws {
        try makeStore(saves: 4)
        let check = try run(["check"])
        #expect(check.status == 0, "\(check.errors)")
        #expect(check.output.contains("ok, 5 objects (Counter 1, Entry 4)"), "\(check.output)")
        #expect(check.output.contains("commit 4, journal 4 record(s) replayed"), "\(check.output)")
        let handle = try FileHandle(forWritingTo: journalURL(url))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"seq\":5,\"ti".utf8))
        try handle.close()
        let torn = try run(["check"])
        #expect(torn.status == 0, "\(torn.errors)")
        #expect(torn.output.contains("warning: \(url.path)-journal: a torn last record of 12 bytes"), "\(torn.output)")
    }

    @Test func checkNamesTheOffsetOfADamagedRecord() throws {
        try makeStore(saves: 3)
        var lines = try fileText(journalURL(url)).split(separator: "\n").map(String.init)
        lines[1] = "{\"seq\":2,"
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journalURL(url))
        let check = try run(["check"])
        #expect(check.status == 1)
        #expect(check.errors.contains("\(url.path)-journal: damaged journal at byte \(lines[0].utf8.count + 1)"), "\(check.errors)")
    }

    @Test func checkRefusesARecordAgainstTheSchemaEvenWithAValidChecksum() throws {
        try makeStore(saves: 3)
        var lines = try fileText(journalURL(url)).split(separator: "\n").map(String.init)
        lines[2] = sealed(unsealed(lines[2]).replacingOccurrences(of: "\"inserted\"", with: "\"insertex\""))
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journalURL(url))
        let check = try run(["check"])
        #expect(check.status == 1)
        // The offset is where the parser met the key, inside the third line (the record's own).
        let start = lines[0].utf8.count + 1 + lines[1].utf8.count + 1
        let offset = check.errors.firstMatch(of: /damaged journal at byte (\d+): unknown key "insertex"/).flatMap { Int($0.1) }
        #expect(offset.map { (start..<(start + lines[2].utf8.count)).contains($0) } == true, "\(check.errors)")
    }

    @Test func checkVerifiesTheHistoryFile() throws {
        try makeStore(saves: 5)
        #expect(try run(["compact", "--history-commits", "3"]).status == 0)
        let ok = try run(["check"])
        #expect(ok.status == 0 && ok.output.contains(": ok, ") && ok.output.contains(", history file 3 record(s) (format version 2)"), "\(ok.output) \(ok.errors)")
        let path = url.path + "-history"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 30] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let check = try run(["check"])
        #expect(check.status == 1)
        #expect(check.errors.contains("\(path): damaged history file at byte"), "\(check.errors)")
    }

    @Test func compactFoldsTheJournalIntoTheSnapshot() throws {
        try makeStore(saves: 5)
        let compact = try run(["compact"])
        #expect(compact.status == 0, "\(compact.errors)")
        #expect(compact.output.contains("compacted, 6 objects at commit 5; 5 journal record(s)"), "\(compact.output)")
        #expect(try Data(contentsOf: journalURL(url)).isEmpty)
        #expect(try fileText(url).contains("\"commitSequence\":5"))
        let check = try run(["check"])
        #expect(check.output.contains("ok, 6 objects"), "\(check.output)")
    }

    @Test func compactKeepsTheFoldedCommitsInTheHistoryFile() throws {
        try makeStore(saves: 5)
        let compact = try run(["compact", "--history-commits", "3"])
        #expect(compact.status == 0, "\(compact.errors)")
        let lines = try fileText(URL(fileURLWithPath: url.path + "-history")).split(separator: "\n")
        #expect(lines.first.map(String.init) == String(decoding: JournalFormat.header.dropLast(), as: UTF8.self))
        let history = lines.dropFirst()
        #expect(history.count == 3)
        #expect(history.first?.hasPrefix("{\"seq\":3,") == true, "\(history)")
        #expect(history.last?.hasPrefix("{\"seq\":5,") == true, "\(history)")
    }

    @Test func compactRefusesANegativeHistoryCount() throws {
        try makeStore(saves: 1)
        let compact = try run(["compact", "--history-commits=-1"])
        #expect(compact.status != 0)
        #expect(compact.errors.contains("--history-commits must be from 0"), "\(compact.errors)")
    }

    @Test func compactRefusesAStoreInUse() throws {
        try makeStore(saves: 1)
        let open = try OpenStore(url, model: try ObjectModel(contentsOf: CrashFiles.model))
        let compact = try run(["compact"])
        #expect(compact.status == 2)
        #expect(compact.errors.contains("is in use by process \(getpid())"), "\(compact.errors)")
        #expect(compact.errors.contains("stop the server first"), "\(compact.errors)")
        open.close()
    }
}
