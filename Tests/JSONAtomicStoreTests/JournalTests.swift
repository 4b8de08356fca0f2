import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A save appends one record to the journal (`docs/FILE_FORMAT.md`, "The journal") instead
/// of rewriting the snapshot; opening replays the records.
struct JournalTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// The journal's records as JSON objects (after its header).
    func records() throws -> [[String: Any]] {
        try fileText(journalURL(url)).split(separator: "\n").dropFirst().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func aSaveAppendsOneRecordAndLeavesTheSnapshotAlone() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "first"])
        try context.save()
        let snapshot = try Data(contentsOf: url)
        #expect(!String(decoding: snapshot, as: UTF8.self).contains("first"), "a new store's snapshot has no objects")
        for index in 2...5 {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
        }
        #expect(try Data(contentsOf: url) == snapshot)
        let records = try records()
        #expect(records.map { $0["seq"] as? Int } == [1, 2, 3, 4, 5])
        #expect(open.store.commitSequence == 5)
        #expect(open.store.journalByteCount == (try Data(contentsOf: journalURL(url))).count)
        #expect(try fileText(journalURL(url)).hasSuffix("}\n"))
        let inserted = try #require(records[4]["inserted"] as? [String: Any])
        let tags = try #require(inserted["Tag"] as? [[String: Any]])
        #expect(tags.count == 1)
        #expect((tags[0]["values"] as? [String: Any])?["label"] as? String == "tag 5")
        #expect(tags[0]["version"] as? Int == 1)
        open.close()

        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.commitSequence == 5)
        #expect(reopened.store.cacheNodeCount == 5)
    }

    @Test func aRecordHoldsObjectsChangedByInversesAndDeletesWithTheirNewVersions() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        let owner = try context.insert("Owner", values: ["name": "Ann"])
        let item = try context.insert("Item", values: ["name": "lamp"])
        let tag = try context.insert("Tag", values: ["label": "t"])
        try context.save()
        try item.setObject(owner, forKey: "owner")  // Owner.items changes by the inverse
        try item.setObjects([tag], forKey: "tags")    // and Tag.items
        try context.save(metadata: CommitMetadata(author: "ann@example"))
        try context.delete(tag)
        try context.save()

        let records = try records()
        #expect(records.count == 3)
        let second = records[1]
        #expect(second["author"] as? String == "ann@example")
        #expect(records[2]["author"] == nil, "the author is for one commit")
        let updated = try #require(second["updated"] as? [String: [[String: Any]]])
        #expect(Set(updated.keys) == ["Item", "Owner", "Tag"])
        #expect(updated["Owner"]?.first?["version"] as? Int == 2)
        #expect((updated["Owner"]?.first?["values"] as? [String: Any])?["items"] as? [Int] == [2])
        let third = records[2]
        #expect((third["deleted"] as? [[String: Any]])?.first?["entity"] as? String == "Tag")
        #expect((third["deleted"] as? [[String: Any]])?.first?["reference"] as? Int == 3)
        let thirdUpdated = try #require(third["updated"] as? [String: [[String: Any]]])
        #expect((thirdUpdated["Item"]?.first?["values"] as? [String: Any])?["tags"] as? [Int] == [])
        #expect((second["time"] as? String)?.hasSuffix("Z") == true)
        let before = open.dump()
        open.close()

        let reopened = try OpenStore(url, model: model)
        #expect(reopened.dump() == before)
    }

    @Test func aRecordListsEntitiesByTheirNamesBytesAndObjectsByReference() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        // Inserted out of order: Tags 1 and 2, Owner 3, Tag 4, Item 5.
        let tags = try (1...2).map { try context.insert("Tag", values: ["label": .string("t\($0)")]) }
        _ = try context.insert("Owner", values: ["name": "Ann"])
        let lastTag = try context.insert("Tag", values: ["label": "t4"])
        _ = try context.insert("Item", values: ["name": "lamp"])
        try context.save()
        // One entity only, several objects: still by reference.
        for tag in [lastTag] + tags.reversed() { try tag.setValue(.string("renamed"), forKey: "label") }
        try context.save()

        let lines = try fileText(journalURL(url)).split(separator: "\n").dropFirst().map(String.init)
        #expect(lines.count == 2)
        let first = try #require(lines.first)
        let entities = ["\"Item\":[", "\"Owner\":[", "\"Tag\":["].map { first.range(of: $0)?.lowerBound }
        #expect(entities.allSatisfy { $0 != nil }, "\(first)")
        #expect(entities.compactMap { $0 } == entities.compactMap { $0 }.sorted(), "entities by their names' bytes: \(first)")
        let second = try #require(lines.last)
        let references = ["\"ref\":1,", "\"ref\":2,", "\"ref\":4,"].map { second.range(of: $0)?.lowerBound }
        #expect(references.allSatisfy { $0 != nil }, "\(second)")
        #expect(references.compactMap { $0 } == references.compactMap { $0 }.sorted(), "objects by reference: \(second)")
        #expect(second.components(separatedBy: "\"Tag\":[").count == 2, "one list for the entity: \(second)")
    }

    @Test func reopeningWithoutACheckpointGivesTheSameObjectsAsACheckpoint() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        var items: [ManagedObject] = []
        for index in 0..<20 {
            let item = try context.insert("Item", values: ["name": .string("item \(index)")])
            if let previous = items.last { try item.setObject(previous, forKey: "favorite") }
            items.append(item)
            try context.save()
        }
        for index in stride(from: 0, to: 20, by: 3) { try context.delete(items[index]) }
        try context.save()
        try items[1].set("note", "changed")
        try context.save()
        #expect(open.store.cacheNodeCount == 13)
        // A copy as the process leaves it when it stops with everything in the journal.
        let copy = directory.file("copy.json")
        try FileManager.default.copyItem(at: url, to: copy)
        try FileManager.default.copyItem(at: journalURL(url), to: journalURL(copy))
        // The original is checkpointed (links to deleted objects are left out of the snapshot).
        try open.store.checkpoint()
        open.close()
        let checkpointed = try OpenStore(url, model: model)
        let expected = checkpointed.dump()
        #expect(expected.count == 13)
        #expect(checkpointed.store.commitSequence == 22)
        #expect(try fileText(url).contains("\"commitSequence\":22"))

        let replayed = try OpenStore(copy, model: model)
        #expect(replayed.dump() == expected)
        #expect(replayed.store.replayedRecordCount == 22)
        #expect(replayed.store.commitSequence == 22)
        try replayed.store.checkpoint()
        #expect(replayed.store.journalByteCount == 0)
        #expect(try Data(contentsOf: journalURL(copy)).isEmpty)
        #expect(try fileText(copy) == fileText(url).replacingOccurrences(
            of: checkpointed.store.metadata.storeIdentifier, with: replayed.store.metadata.storeIdentifier))
    }

    @Test func theStoreCheckpointsWhenTheJournalPassesItsThresholdAndWhenItIsClosed() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "600"])
        let context = open.context()
        var sizes: [Int] = []
        for index in 0..<10 {
            _ = try context.insert("Tag", values: ["label": .string("tag \(index)")])
            try context.save()
            sizes.append(open.store.journalByteCount)
        }
        #expect(sizes.contains(0), "the journal was folded into the snapshot: \(sizes)")
        #expect(sizes.allSatisfy { $0 < 600 + 400 })
        #expect(sizes.last != 0)
        open.close()
        #expect(try Data(contentsOf: journalURL(url)).isEmpty, "closing checkpoints")
        #expect(try fileText(url).contains("\"commitSequence\":10"))
        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.cacheNodeCount == 10)
        #expect(reopened.store.commitSequence == 10)
    }

    @Test func aBadCheckpointThresholdIsRefused() throws {
        #expect(throws: JSONStoreError.self) {
            _ = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "-1"])
        }
    }

    @Test func aMetadataChangeIsMadeDurableByTheNextSave() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "a"])
        try context.save()
        open.store.metadata.userInfo = ["app": "catalog"]
        _ = try context.insert("Tag", values: ["label": "b"])
        try context.save()
        #expect(try fileText(url).contains("\"app\":\"catalog\""))
        #expect(open.store.commitSequence == 2)
        open.store.journal.close()
        let copy = directory.file("copy.json")
        try FileManager.default.copyItem(at: url, to: copy)
        let reopened = try OpenStore(copy, model: model)
        #expect(reopened.store.metadata.userInfo == ["app": "catalog"])
        #expect(reopened.store.cacheNodeCount == 2)
    }

    @Test func theJournalIsCreatedWithTheStoresFileMode() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.fileModeOption: "640"])
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "a"])
        try context.save()
        var info = stat()
        #expect(lstat(journalURL(url).path, &info) == 0)
        #expect(info.st_mode & 0o7777 == 0o640)
        open.close()
    }
}

/// A journal that is no longer at its path is never appended to.
struct JournalPlaceTests {
    @Test func aSaveIsRefusedWhileTheStoresDirectoryIsMovedAwayAndWorksWhenItIsBack() throws {
        let model = try CatalogModel.make()
        let root = try TemporaryDirectory()
        let folder = root.file("store"), moved = root.file("moved")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("store.json")
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "before"])
        try context.save()
        try FileManager.default.moveItem(at: folder, to: moved)
        _ = try context.insert("Tag", values: ["label": "during"])
        #expect(throws: JSONStoreError.self) { try context.save() }
        #expect(open.store.commitSequence == 1)
        // A file where the directory was: the journal's path no longer leads to the journal.
        try Data("not a directory".utf8).write(to: folder)
        #expect {
            try context.save()
        } throws: { error in
            guard case JSONStoreError.unsafeFile(let path, let reason) = error else { return false }
            return path == url.path + "-journal" && reason.contains("moved, replaced or removed")
        }
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.moveItem(at: moved, to: folder)
        try context.save()
        #expect(open.store.commitSequence == 2)
        open.close()
        let reopened = try OpenStore(url, model: model)
        #expect(reopened.store.cacheNodeCount == 2)
    }

    @Test func aSaveAfterTheJournalWasRemovedWritesTheSnapshotWhole() throws {
        let model = try CatalogModel.make()
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "one"])
        try context.save()
        try FileManager.default.removeItem(at: journalURL(url))
        try FileManager.default.removeItem(at: url)
        _ = try context.insert("Tag", values: ["label": "two"])
        try context.save()
        #expect(open.store.commitSequence == 2)
        #expect(try fileText(url).contains("\"label\":\"one\""), "the snapshot holds what only memory held")
        _ = try context.insert("Tag", values: ["label": "three"])
        try context.save()
        open.store.journal.close()
        let copy = directory.file("copy.json")
        try FileManager.default.copyItem(at: url, to: copy)
        try FileManager.default.copyItem(at: journalURL(url), to: journalURL(copy))
        let reopened = try OpenStore(copy, model: model)
        #expect(reopened.store.cacheNodeCount == 3)
        #expect(reopened.store.commitSequence == 3)
    }
}
