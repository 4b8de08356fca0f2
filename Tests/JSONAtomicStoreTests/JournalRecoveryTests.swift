import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The files as a crash leaves them, at each point of a save and of a checkpoint: the store
/// reopens to exactly the acknowledged saves, or refuses a damaged journal naming the offset.
struct JournalRecoveryTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// A store with `count` tags saved one per commit, left as a stopped process leaves it
    /// (no checkpoint); returns the journal's text.
    @discardableResult
    func makeStore(tags count: Int) throws -> String {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        for index in 1...count {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
        }
        open.store.journal.close()
        return try fileText(journalURL(url))
    }

    func labels(_ open: OpenStore) -> [String] {
        open.store.cacheNodes().compactMap { node -> String? in
            if case .string(let label) = node.values.first { return label }
            return nil
        }.sorted()
    }

    func snapshots(_ open: OpenStore) -> [ObjectSnapshot] {
        open.store.cacheNodes().map { ObjectSnapshot(objectID: $0.objectID, version: $0.version, values: $0.values) }
    }

    func appendToJournal(_ bytes: String) throws {
        let handle = try FileHandle(forWritingTo: journalURL(url))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes.utf8))
        try handle.close()
    }

    @Test func aTornLastRecordWithoutItsNewlineIsCutOffAndReported() throws {
        let journal = try makeStore(tags: 3)
        let lines = journal.split(separator: "\n")
        // Power loss mid-append: the first half of a fourth record.
        let fourth = lines[2].replacingOccurrences(of: "\"seq\":3", with: "\"seq\":4").replacingOccurrences(of: "tag 3", with: "tag 4")
        try appendToJournal(String(fourth.prefix(fourth.count / 2)))
        let open = try OpenStore(url, model: model)
        #expect(labels(open) == ["tag 1", "tag 2", "tag 3"])
        #expect(open.store.recoveredTornBytes == fourth.count / 2)
        #expect(open.store.commitSequence == 3)
        #expect(try fileText(journalURL(url)) == journal, "the torn bytes are cut off")
        // The next save follows the last good record.
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "tag 4"])
        try context.save()
        open.close()
        let reopened = try OpenStore(url, model: model)
        #expect(labels(reopened) == ["tag 1", "tag 2", "tag 3", "tag 4"])
        #expect(reopened.store.recoveredTornBytes == 0)
    }

    @Test func aWholeLastRecordWithoutItsNewlineIsTornToo() throws {
        let journal = try makeStore(tags: 2)
        let second = String(journal.split(separator: "\n")[1])
        try appendToJournal(second.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":3"))
        let open = try OpenStore(url, model: model, readOnly: true)
        #expect(labels(open) == ["tag 1", "tag 2"])
        #expect(open.store.recoveredTornBytes == second.count)
        #expect(try fileText(journalURL(url)).count > journal.count, "a read-only open changes no file")
    }

    @Test func aLastLineOfZerosWithoutANewlineIsTorn() throws {
        let journal = try makeStore(tags: 2)
        try appendToJournal(String(repeating: "\u{0}", count: 100))
        let open = try OpenStore(url, model: model)
        #expect(labels(open) == ["tag 1", "tag 2"])
        #expect(open.store.recoveredTornBytes == 100)
        #expect(try fileText(journalURL(url)) == journal)
    }

    @Test func aCompleteLastLineOfZerosIsDamageNotATear() throws {
        let journal = try makeStore(tags: 2)
        try appendToJournal(String(repeating: "\u{0}", count: 100) + "\n")
        #expect { _ = try OpenStore(url, model: model) } throws: { error in
            guard case JSONStoreError.invalidJournal(_, let offset, _) = error else { return false }
            return offset == journal.utf8.count
        }
    }

    @Test func aDamagedRecordBeforeTheLastIsRefusedWithItsOffset() throws {
        let journal = try makeStore(tags: 3)
        let lines = journal.split(separator: "\n", omittingEmptySubsequences: false)
        var damaged = lines.map(String.init)
        damaged[1] = String(damaged[1].dropLast(5))
        try Data(damaged.joined(separator: "\n").utf8).write(to: journalURL(url))
        let offset = lines[0].utf8.count + 1
        #expect {
            _ = try OpenStore(url, model: model)
        } throws: { error in
            guard case JSONStoreError.invalidJournal(let file, let at, _) = error else { return false }
            return file == url.path + "-journal" && at == offset
                && "\(error)".contains("damaged journal at byte \(offset)")
        }
        #expect(try fileText(journalURL(url)) == damaged.joined(separator: "\n"), "nothing is cut from a damaged journal")
    }

    @Test func aValidJSONLineThatIsNotARecordIsDamageEvenAtTheEnd() throws {
        try makeStore(tags: 1)
        try appendToJournal("[1,2]\n")
        #expect { _ = try OpenStore(url, model: model) } throws: { error in
            guard case JSONStoreError.invalidJournal = error else { return false }
            return true
        }
    }

    @Test func aGapInTheSequenceIsRefused() throws {
        let journal = try makeStore(tags: 3)
        var lines = journal.split(separator: "\n").map(String.init)
        lines.remove(at: 2)  // the header, records 1 and 3
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journalURL(url))
        #expect { _ = try OpenStore(url, model: model) } throws: { error in
            guard case JSONStoreError.invalidJournal(_, let offset, let reason) = error else { return false }
            return offset == lines[0].utf8.count + 1 + lines[1].utf8.count + 1 && reason.contains("record 3 follows record 1")
        }
    }

    @Test func aRecordForAnObjectThatDoesNotExistIsRefused() throws {
        let journal = try makeStore(tags: 2)
        let line = unsealed(journal.split(separator: "\n")[2])
        // Record 3 "updates" an object that no record inserted.
        let bogus = line.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":3")
            .replacingOccurrences(of: "\"inserted\"", with: "\"x\"").replacingOccurrences(of: "\"updated\":{}", with: "\"updated\":")
        let record = bogus.replacingOccurrences(of: "\"x\":", with: "\"inserted\":{},\"updated\":").replacingOccurrences(of: "\"updated\":,", with: "")
        try appendToJournal(sealed(record) + "\n" + sealed(line.replacingOccurrences(of: "\"seq\":2", with: "\"seq\":4")) + "\n")
        #expect { _ = try OpenStore(url, model: model) } throws: { error in
            guard case JSONStoreError.invalidJournal(_, _, let reason) = error else { return false }
            return reason.contains("does not exist") || reason.contains("exists")
        }
    }

    @Test func aJournalWithoutItsSnapshotIsRefused() throws {
        try makeStore(tags: 1)
        try FileManager.default.removeItem(at: url)
        #expect(throws: JSONStoreError.journalWithoutSnapshot(journal: url.path + "-journal", store: url.path)) {
            _ = try OpenStore(url, model: model)
        }
    }

    @Test func aCrashBetweenTheSnapshotRenameAndTheJournalReplacementAppliesNoRecordTwice() throws {
        do {  // the process, which stops at the end of the block (its lock goes with it)
            let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
            let context = open.context()
            for index in 1...3 {
                _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
                try context.save()
            }
            let ticket = try open.store.beginCheckpoint()
            try JSONAtomicStore.writeSnapshot(ticket, objects: snapshots(open))
            // A save after the snapshot was written, then the process stops before finishCheckpoint.
            _ = try context.insert("Tag", values: ["label": "tag 4"])
            try context.save()
            open.store.journal.close()
            #expect(try fileText(url).contains("\"commitSequence\":3"))
            #expect(try fileText(journalURL(url)).split(separator: "\n").count == 5, "the header and 4 records")
        }
        let reopened = try OpenStore(url, model: model)
        #expect(labels(reopened) == ["tag 1", "tag 2", "tag 3", "tag 4"])
        #expect(reopened.store.commitSequence == 4)
        #expect(reopened.store.replayedRecordCount == 1)
    }

    @Test func aCrashWhileTheSnapshotIsWrittenLeavesTheOldSnapshotAndTheWholeJournal() throws {
        try makeStore(tags: 3)
        let snapshot = try Data(contentsOf: url)
        // A half-written temporary snapshot, as a checkpoint killed mid-write leaves it.
        let temporary = directory.file(".store.json.tmp-00000000deadbeef")
        try Data(snapshot.prefix(snapshot.count / 2)).write(to: temporary)
        // And a half-written temporary journal of a finishCheckpoint killed mid-copy.
        let temporaryJournal = directory.file(".store.json-journal.tmp-00000000deadbeef")
        try Data("{\"seq\":".utf8).write(to: temporaryJournal)
        let open = try OpenStore(url, model: model)
        #expect(labels(open) == ["tag 1", "tag 2", "tag 3"])
        #expect(!FileManager.default.fileExists(atPath: temporary.path), "leftovers are removed")
        #expect(!FileManager.default.fileExists(atPath: temporaryJournal.path))
    }

    @Test func aCheckpointWhoseSnapshotIsWrittenOnAnotherThreadWhileSavesGoOnLosesNothing() async throws {
        do {
            let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
            let context = open.context()
            for index in 1...50 {
                _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            }
            try context.save()
            let ticket = try open.store.beginCheckpoint()
            #expect(throws: JSONStoreError.self) { _ = try open.store.beginCheckpoint() }
            let objects = snapshots(open)  // the immutable state of commit 1
            let writer = Task.detached { try JSONAtomicStore.writeSnapshot(ticket, objects: objects) }
            for index in 51...60 {
                _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
                try context.save()
            }
            try await writer.value
            for index in 61...62 {
                _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
                try context.save()
            }
            try open.store.finishCheckpoint(ticket)
            #expect(throws: JSONStoreError.self) { try open.store.finishCheckpoint(ticket) }
            #expect(try fileText(journalURL(url)).split(separator: "\n").count == 13, "the header and the records after the ticket")
            #expect(try fileText(url).contains("\"commitSequence\":1"))
            _ = try context.insert("Tag", values: ["label": "tag 63"])
            try context.save()
            open.store.journal.close()
        }
        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.cacheNodeCount == 63)
        #expect(reopened.store.commitSequence == 14)
        #expect(reopened.store.replayedRecordCount == 13)
    }

    @Test func anAbandonedCheckpointLetsTheNextOneBegin() throws {
        try makeStore(tags: 1)
        let open = try OpenStore(url, model: model)
        let ticket = try open.store.beginCheckpoint()
        open.store.abandonCheckpoint(ticket)
        try open.store.checkpoint()
        #expect(open.store.journalByteCount == 0)
    }

    @Test func aSnapshotAtTheLargestCommitSequenceOpensAndRefusesTheNextSave() throws {
        let snapshot = StoreFiles.document(model).replacingOccurrences(
            of: "\"nextReference\":1,", with: "\"nextReference\":1,\"commitSequence\":\(Int64.max),")
        try Data(snapshot.utf8).write(to: url)
        try Data("{\"seq\":1,\"time\":\"2026-11-24T22:50:01.123Z\",\"nextReference\":1,\"inserted\":{},\"updated\":{},\"deleted\":[]}\n".utf8).write(to: journalURL(url))
        let open = try OpenStore(url, model: model)
        #expect(open.store.commitSequence == Int64.max)
        #expect(open.store.replayedRecordCount == 0)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "one too many"])
        #expect(throws: JSONStoreError.sequenceExhausted(path: url.path)) { try context.save() }
    }
}

/// A version 2 record line without its checksum (`…}`), to change it in a test.
func unsealed<Line: StringProtocol>(_ line: Line) -> String {
    String(line.dropLast(JournalFormat.checksumLength)) + "}"
}

/// A record line with its checksum, as a version 2 journal holds it.
func sealed(_ line: String) -> String {
    var bytes = Array(line.utf8)
    JournalFormat.seal(&bytes)
    return String(decoding: bytes, as: UTF8.self)
}
