import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// Replaying a journal over a snapshot that holds objects: an update takes the place of the
/// snapshot's object (its values, version and links), and the store opened from snapshot +
/// journal is the one a checkpoint writes.
struct JournalReplayTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// A snapshot of owners, items (each with an owner, a twin, parts and tags) and tags.
    func makeSnapshot(_ open: OpenStore) throws -> (owners: [ManagedObject], items: [ManagedObject], tags: [ManagedObject]) {
        let context = open.context()
        let owners = try (0..<3).map { try context.insert("Owner", values: ["name": .string("owner \($0)")]) }
        let tags = try (0..<4).map { try context.insert("Tag", values: ["label": .string("tag \($0)")]) }
        var items: [ManagedObject] = []
        for index in 0..<12 {
            let item = try context.insert("Item", values: ["name": .string("item \(index)")])
            try item.setObject(owners[index % owners.count], forKey: "owner")
            try item.setObjects([tags[index % tags.count], tags[(index + 1) % tags.count]], forKey: "tags")
            let part = try context.insert("Part", values: ["title": .string("part \(index)")])
            try item.setObjects([part], forKey: "parts")
            if index % 2 == 1 { try item.setObject(items[index - 1], forKey: "twin") }
            items.append(item)
        }
        try context.save()
        try open.store.checkpoint()
        return (owners, items, tags)
    }

    /// Checkpoints `open` and replays a copy of its snapshot and journal (``OpenStore/replayedAndCheckpointed(at:in:model:records:)``).
    func replayedAndCheckpointed(_ open: OpenStore, records: Int) throws -> (expected: [String: [String]], replayed: OpenStore) {
        try open.replayedAndCheckpointed(at: url, in: directory, model: model, records: records)
    }

    @Test func updatesOfTheSnapshotsObjectsReplayToWhatACheckpointWrites() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let (owners, items, tags) = try makeSnapshot(open)
        let context = open.context()
        func object(_ managed: ManagedObject) -> ManagedObject { context.object(with: managed.objectID) }
        // Attributes, a to-one with a to-many inverse, a to-one/to-one and a many-to-many,
        // some objects updated several times, a new object updated after its insert.
        try object(items[0]).set("note", "first")
        try object(items[0]).setObject(object(owners[2]), forKey: "owner")
        try context.save()
        try object(items[0]).set("note", "second")
        try object(items[3]).setObjects([object(tags[3])], forKey: "tags")
        try object(items[4]).setObject(object(items[5]), forKey: "twin")
        try context.save()
        let added = try context.insert("Item", values: ["name": "added"])
        try added.setObject(object(owners[1]), forKey: "owner")
        try context.save()
        try added.setObjects([object(tags[0])], forKey: "tags")
        try object(items[0]).set("note", "third")
        try context.save()
        #expect(open.store.cacheNodeCount == 3 + 4 + 12 * 2 + 1)

        let (expected, replayed) = try replayedAndCheckpointed(open, records: 4)
        #expect(replayed.dump() == expected)
        let thrice = "Item \(items[0].objectID.referenceObject) v4"
        #expect(expected[thrice] != nil, "the object updated three times has version 4")
        #expect(replayed.store.cacheNodeCount == 3 + 4 + 12 * 2 + 1)
    }

    @Test func deletesOfTheSnapshotsObjectsBetweenUpdatesReplayToWhatACheckpointWrites() throws {
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let (owners, items, tags) = try makeSnapshot(open)
        let context = open.context()
        func object(_ managed: ManagedObject) -> ManagedObject { context.object(with: managed.objectID) }
        try object(items[1]).set("note", "updated, then deleted")
        try object(items[2]).set("note", "kept")
        try context.save()
        try context.delete(object(items[1]))
        try context.delete(object(tags[2]))
        try context.save()
        try object(items[2]).setObject(object(owners[0]), forKey: "owner")
        try context.save()

        let (expected, replayed) = try replayedAndCheckpointed(open, records: 3)
        #expect(replayed.dump() == expected)
        #expect(replayed.store.cacheNodeCount == 3 + 3 + 12 * 2 - 1)
    }
}
