import Foundation
import ServerTestSupport
import Testing

/// `docserver backup` (the `backup` method) and `docserver restore` against the real binary:
/// a backup taken while clients save restores to exactly what the server had answered up to
/// its manifest's `seq`, and to any commit between its base and that `seq`.
@Suite struct BackupRestoreTests {
    /// What the savers' answers say, by commit: the tags' labels after each save.
    final class SaveLog: @unchecked Sendable {
        // @unchecked: every field is used with `lock` held.
        private let lock = NSLock()
        private var saves: [Int: [(id: String, label: String)]] = [:]
        private var failures: [String] = []
        private var stopped = false
        private var backupResult: CommandResult?
        var backup: CommandResult? {
            get { lock.withLock { backupResult } }
            set { lock.withLock { backupResult = newValue } }
        }

        func add(seq: Int, _ changes: [(id: String, label: String)]) { lock.withLock { saves[seq, default: []] += changes } }
        func fail(_ text: String) { lock.withLock { failures.append(text) } }
        func stop() { lock.withLock { stopped = true } }
        var isStopped: Bool { lock.withLock { stopped } }
        var problems: [String] { lock.withLock { failures } }
        var sequences: [Int] { lock.withLock { saves.keys.sorted() } }

        /// The tags (ID → label) after every save answered with a `seq` at or below `seq`: a replay of the answers.
        func tags(through seq: Int) -> [String: String] {
            lock.withLock {
                var tags: [String: String] = [:]
                for key in saves.keys.sorted() where key <= seq {
                    for change in saves[key] ?? [] { tags[change.id] = change.label }
                }
                return tags
            }
        }
    }

    /// The tags of a store file (ID → label), read with `docserver export`.
    static func tags(ofStore store: URL) throws -> [String: String] {
        let export = try runDocServer(["export", "--store", store.path], timeout: 60)
        guard export.status == 0 else { throw HarnessError("export of \(store.path) failed: \(export.errors)") }
        var tags: [String: String] = [:]
        for line in export.output.split(separator: "\n").dropFirst() {
            let object = try JSON(parsing: String(line))
            guard object["entity"].string == "Tag", let id = object["id"].string, let label = object["values"]["label"].string else { continue }
            tags[id] = label
        }
        return tags
    }

    /// A short, order-independent digest of tags, for the messages.
    static func digest(_ tags: [String: String]) -> String {
        let text = tags.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "\n")
        return "\(tags.count) tags, hash \(String(text.hashValue & 0xFFFF_FFFF, radix: 16))"
    }

    @Test func aBackupTakenWhileClientsSaveRestoresToItsSeqAndToAnyCommitItReaches() throws {
        let directory = try TemporaryDirectory()
        // Small checkpoints: the snapshot is replaced and the journal cut while the backup copies.
        let server = try ServerProcess(in: directory, arguments: ["--journal-checkpoint-bytes", "40000"])
        let log = SaveLog()
        let backupDirectory = directory.file("backup-1")
        let savers = 4
        let address = "\(server.host):\(server.port)", port = server.port
        // Threads, not concurrentPerform: it runs no more tasks at once than there are cores.
        let finished = DispatchGroup()
        for index in 0..<savers {
            finished.enter()
            Thread.detachNewThread {
            defer { finished.leave() }
            do {
                let client = try LineClient(port: port)
                var mine: [(id: String, version: Int)] = []
                var count = 0
                while !log.isStopped {
                    count += 1
                    let label = "w\(index)-\(count)"
                    if count % 3 == 0, let last = mine.last {
                        let result = try client.result("save", ["update": [["id": last.id, "version": last.version, "values": ["label": label]]]])
                        guard let seq = result["seq"].int else { return log.fail("update: \(result)") }
                        mine[mine.count - 1].version += 1
                        log.add(seq: seq, [(last.id, label)])
                    } else {
                        let result = try client.result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": label]]]])
                        guard let seq = result["seq"].int, let id = result["ids"]["t"].string else { return log.fail("insert: \(result)") }
                        mine.append((id, 1))
                        log.add(seq: seq, [(id, label)])
                    }
                }
            } catch {
                log.fail("saver \(index): \(error)")
            }
            }
        }
        usleep(600_000)
        log.backup = try? runDocServer(["backup", "--server", address, "--to", backupDirectory.path], timeout: 60)
        usleep(300_000)
        log.stop()
        #expect(finished.wait(timeout: .now() + 30) == .success, "the savers stopped")
        #expect(log.problems.isEmpty, "\(log.problems.prefix(3))")
        let result = try #require(log.backup, "the backup command ran")
        #expect(result.status == 0, "\(result.errors)")
        try server.stop()

        let manifest = try JSON(contentsOf: backupDirectory.appendingPathComponent("manifest.json"))
        let seq = try #require(manifest["seq"].int), base = try #require(manifest["baseSeq"].int)
        let last = try #require(log.sequences.last)
        #expect(base <= seq && seq < last, "saves went on after the backup: base \(base), seq \(seq), last save \(last)")
        #expect(manifest["files"].array?.map { $0["name"].string } == ["snapshot.json", "records.journal"])

        // At the manifest's seq: exactly what the answers up to it say.
        let restored = try TemporaryDirectory()
        let store = restored.file("store.json")
        let restore = try runDocServer(["restore", "--from", backupDirectory.path, "--to", store.path], timeout: 60)
        #expect(restore.status == 0, "\(restore.errors)")
        #expect(restore.output.contains("restored at commit \(seq)"), "\(restore.output)")
        let expected = log.tags(through: seq)
        let found = try Self.tags(ofStore: store)
        #expect(found == expected, "restored \(Self.digest(found)), the answers up to \(seq) say \(Self.digest(expected))")
        // A server opens the restored store at that commit.
        let again = try ServerProcess(store: store, keeping: restored)
        let hello = try again.connect().result("hello", ["client": "test"])
        #expect(hello["seq"].int == seq, "\(hello)")
        try again.stop()

        // At random commits the backup reaches: what a replay of the answers gives.
        var random = SplitMix64(seed: 43)
        for _ in 0..<5 {
            let target = Int.random(in: base...seq, using: &random)
            let at = restored.file("at-\(target)-\(UInt32.random(in: 0...UInt32.max, using: &random)).json")
            let step = try runDocServer(["restore", "--from", backupDirectory.path, "--to", at.path, "--to-seq", String(target)], timeout: 60)
            #expect(step.status == 0, "\(step.errors)")
            let replay = log.tags(through: target)
            let tags = try Self.tags(ofStore: at)
            #expect(tags == replay, "at \(target): restored \(Self.digest(tags)), replay \(Self.digest(replay))")
        }

        // Beyond it: refused, naming the oldest and newest it reaches.
        for beyond in [seq + 1, base - 1] where beyond >= 0 {
            let refused = try runDocServer(["restore", "--from", backupDirectory.path, "--to", restored.file("no.json").path,
                                            "--to-seq", String(beyond)])
            #expect(refused.status == 2, "\(refused.errors)")
            #expect(refused.errors.contains("cannot restore commit \(beyond): this backup reaches commits \(base) ")
                    && refused.errors.contains(" to \(seq) "), "\(refused.errors)")
            #expect(!FileManager.default.fileExists(atPath: restored.file("no.json").path))
        }
    }

    @Test func aDamagedBackupFileIsRefusedAndABackupDirectoryMustBeNew() throws {
        let directory = try TemporaryDirectory()
        let server = try ServerProcess(in: directory)
        _ = try server.connect().result("save", ["insert": [["id": "t", "entity": "Tag", "values": ["label": "one"]]]])
        let backupDirectory = directory.file("backup")
        let first = try runDocServer(["backup", "--server", "\(server.host):\(server.port)", "--to", backupDirectory.path])
        #expect(first.status == 0, "\(first.errors)")
        let second = try runDocServer(["backup", "--server", "\(server.host):\(server.port)", "--to", backupDirectory.path])
        #expect(second.status == 1 && second.errors.contains("not empty"), "\(second.errors)")
        try server.stop()

        let records = backupDirectory.appendingPathComponent("snapshot.json")
        var bytes = try Data(contentsOf: records)
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: records)
        let restore = try runDocServer(["restore", "--from", backupDirectory.path, "--to", directory.file("restored.json").path])
        #expect(restore.status == 1, "\(restore.errors)")
        #expect(restore.errors.contains("snapshot.json: damaged"), "\(restore.errors)")
    }
}
