import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A save carries its metadata to the store (`CommitMetadata`) and the store's commit returns
/// what it did (`SaveResult`): no property of the store is set before a save or read after it.
struct TypedCommitTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    let url: URL

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
        url = directory.file("store.json")
    }

    /// The journal's records, without its header line.
    private func records() throws -> [[String: Any]] {
        let lines = try fileText(journalURL(url)).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(lines.first?["format"] as? String == "graphcore-json-journal")
        return Array(lines.dropFirst())
    }

    @Test func aSaveOfTwoPartsWritesOneRecordPerPartAndReturnsTheirNumbersAndVersions() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        let first = try context.insert("Tag", values: ["label": "a"])
        try context.save()
        try first.set("label", "b")
        let second = try context.insert("Tag", values: ["label": "c"])
        let time = Date(timeIntervalSince1970: 1_700_000_000)
        let result = try context.save(metadata: CommitMetadata(time: time, parts: [
            CommitPart(author: "ann", objects: [first.objectID]), CommitPart(author: "bob", objects: [second.objectID]),
        ]))
        #expect(result.sequences == [2, 3])
        #expect(result.versions[first.objectID] == 2)
        #expect(open.store.commitSequence == 3)
        let records = try records()
        #expect(records.map { $0["seq"] as? Int } == [1, 2, 3])
        #expect(records.map { $0["author"] as? String } == [nil, "ann", "bob"])
        func count(_ record: [String: Any], _ key: String) -> Int {
            (record[key] as? [String: [Any]])?.values.reduce(0) { $0 + $1.count } ?? 0
        }
        #expect(count(records[1], "updated") == 1 && count(records[1], "inserted") == 0, "ann's part: the update")
        #expect(count(records[2], "inserted") == 1 && count(records[2], "updated") == 0, "bob's part: the insert")
        #expect(records.dropFirst().map { $0["time"] as? String } == [String](repeating: records[1]["time"] as? String ?? "?", count: 2))
        #expect((records[1]["time"] as? String)?.hasPrefix("2023-11-14T22:13:20") == true, "the metadata's time")
    }

    @Test func metadataIsForOneSaveOnly() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "a"])
        #expect(try context.save(metadata: CommitMetadata(author: "ann")).sequences == [1])
        _ = try context.insert("Tag", values: ["label": "b"])
        #expect(try context.save(metadata: CommitMetadata()).sequences == [2])
        #expect(try records().map { $0["author"] as? String } == ["ann", nil])
    }

    @Test func theJSONStoreIsAJournaledStore() throws {
        let open = try OpenStore(url, model: model)
        let context = open.context()
        _ = try context.insert("Tag", values: ["label": "a"])
        try context.save()
        let journaled = try #require(open.store as PersistentStore as? any JournaledStore)
        #expect(journaled.commitSequence == 1)
        #expect(journaled.journalByteCount > 0)
        #expect((open.store as PersistentStore as? any SharedDatabaseStore) == nil)
    }
}
