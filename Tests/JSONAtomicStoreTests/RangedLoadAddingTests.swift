import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// The nodes of a large file go into the store's tables while the file is still parsed: what
/// the journal's replay or a late store identifier changes afterwards is what the tables hold.
@Suite struct RangedLoadAddingTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    /// `count` items, each in a pair of twins, with a note: a file parsed in ranges.
    func largeObjects(_ count: Int) -> String {
        let note = String(repeating: "x", count: 300)
        let items = (1...count).map { ref in
            StoreFiles.item(ref, "\"twin\":\(ref % 2 == 1 ? ref + 1 : ref - 1),\"note\":\"\(note)\",\"ratio\":\(Double(ref) / 7)")
        }
        return "{\"Item\":[" + items.joined(separator: ",") + "]}"
    }

    @Test func aLargeStoreWithAJournalHoldsTheJournalsDeletesAndUpdates() throws {
        let text = StoreFiles.document(model, objects: largeObjects(20_000))
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        try Data(text.utf8).write(to: url)
        let expected: [String: [String]]
        let journal: Data
        do {
            let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
            defer { open.close() }
            let context = open.context()
            let items = try context.fetch(FetchRequest(entityName: "Item", predicate: .key("ratio") < 1.5))
            let deleted = try #require(items.first { try $0.get("name", as: String.self) == "item 5" })
            let updated = try #require(items.first { try $0.get("name", as: String.self) == "item 8" })
            try context.delete(deleted)
            try updated.setValue(.string("renamed"), forKey: "name")
            try context.save()
            #expect(open.store.journalByteCount > 0)
            expected = open.dump()
            // The journal as the save left it (closing the store checkpoints it away).
            journal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-journal"))
        }
        #expect(!journal.isEmpty)
        try Data(text.utf8).write(to: url)
        try journal.write(to: URL(fileURLWithPath: url.path + "-journal"))

        let reopened = try OpenStore(url, model: model, readOnly: true)
        #expect(reopened.store.replayedRecordCount == 1)
        #expect(reopened.store.cacheNodeCount == 19_999)
        let same = reopened.dump() == expected  // (not printed when it fails: 20,000 objects)
        #expect(same)
    }

    @Test func aLargeStoreWhoseObjectsComeBeforeItsMetadataHoldsNodesOfItsIdentifier() throws {
        let document = StoreFiles.document(model, objects: largeObjects(20_000))
        // {"format":…,"metadata":{…},"objects":{…}}  →  {"objects":{…},"format":…,"metadata":{…}}
        let objects = try #require(document.range(of: ",\"objects\":"))
        let head = document[document.index(after: document.startIndex)..<objects.lowerBound]
        let tail = document[objects.upperBound...].dropLast(2)  // without the final "}\n"
        let text = "{\"objects\":" + tail + "," + head + "}\n"
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        try Data(text.utf8).write(to: url)

        let open = try OpenStore(url, model: model, readOnly: true)
        #expect(open.store.identifier == StoreFiles.uuid)
        #expect(open.store.cacheNodeCount == 20_000)
        let item = try #require(model.entity(named: "Item"))
        let id = ObjectID(entity: item, storeIdentifier: StoreFiles.uuid, reference: .int(12_345))
        #expect(open.store.cacheNode(for: id)?.objectID.storeIdentifier == StoreFiles.uuid)
        #expect(open.store.cacheNodes().allSatisfy { $0.objectID.storeIdentifier == StoreFiles.uuid })
    }

    /// A file of `count` twins whose items `dangling` point at a twin that does not exist.
    func twins(_ count: Int, dangling: Set<Int>) -> String {
        let items = (1...count).map { ref in
            let twin = dangling.contains(ref) ? count + 100 + ref : ref % 2 == 1 ? ref + 1 : ref - 1
            return StoreFiles.item(ref, "\"twin\":\(twin)")
        }
        return StoreFiles.document(model, objects: "{\"Item\":[" + items.joined(separator: ",") + "]}")
    }

    @Test func theFirstDanglingReferenceIsReportedWhenManyLinksResolveOnTwoThreads() throws {
        // 70,000 to-one links: resolved in two halves. An error in each half, or in the second alone.
        for dangling in [[10_001, 60_001], [60_001]] {
            let text = twins(70_000, dangling: Set(dangling))
            let error = StoreFiles.openError(text, model: model, in: directory) as? JSONStoreError
            let first = dangling[0]
            #expect(error?.description == "\(url.path): Item \(first), property \"twin\": no object has reference \(70_100 + first)")
        }
        #expect(StoreFiles.openError(twins(70_000, dangling: []), model: model, in: directory) == nil)
    }
}
