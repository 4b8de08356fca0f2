import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A store with more to-many links than `ReferenceResolver.parallelLinks` has them resolved on
/// two threads, each for the lists of its own objects: the same values, and the same first
/// error, as on one, whether the lists are in the order of their objects (a file) or not (a
/// journal's replay).
@Suite struct ParallelResolveTests {
    static let itemCount = 70_000
    static let tagCount = 700
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    /// Tag `t` of `tags` (references after the items'): listing items `t`, `t + tags`, …
    static func tagReference(_ index: Int) -> Int { itemCount + 1 + index }

    /// The items (item `i` tagged with tag `i % tagCount`) and their tags, in either order;
    /// `itemTags` and `tagItems` replace the lists of one item and of one tag.
    func objects(tagsFirst: Bool, itemTags: (item: Int, list: String)? = nil, tagItems: (tag: Int, list: String)? = nil) -> String {
        var items: [String] = []
        items.reserveCapacity(Self.itemCount)
        for ref in 1...Self.itemCount {
            let list = itemTags?.item == ref ? itemTags!.list : "\(Self.tagReference((ref - 1) % Self.tagCount))"
            items.append(StoreFiles.item(ref, "\"tags\":[\(list)]"))
        }
        var tags: [String] = []
        for index in 0..<Self.tagCount {
            let list = tagItems?.tag == index ? tagItems!.list
                : stride(from: index + 1, through: Self.itemCount, by: Self.tagCount).map(String.init).joined(separator: ",")
            tags.append("{\"ref\":\(Self.tagReference(index)),\"version\":1,\"values\":{\"label\":\"tag \(index)\",\"items\":[\(list)]}}")
        }
        let itemArray = "\"Item\":[" + items.joined(separator: ",") + "]"
        let tagArray = "\"Tag\":[" + tags.joined(separator: ",") + "]"
        return "{" + (tagsFirst ? tagArray + "," + itemArray : itemArray + "," + tagArray) + "}"
    }

    @Test(arguments: [false, true])
    func manyToManyListsResolveOnTwoThreadsToTheirValues(tagsFirst: Bool) throws {
        #expect(2 * Self.itemCount >= ReferenceResolver.parallelLinks)
        try Data(StoreFiles.document(model, objects: objects(tagsFirst: tagsFirst)).utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        defer { open.close() }
        let dump = open.dump()
        let tagsIndex = try #require(model.entitiesByName["Item"]?.properties.firstIndex { $0.name == "tags" })
        let itemsIndex = try #require(model.entitiesByName["Tag"]?.properties.firstIndex { $0.name == "items" })
        for ref in [1, 2, 35_000, Self.itemCount] {
            #expect(dump["Item \(ref) v1"]?[tagsIndex] == "->> \(Self.tagReference((ref - 1) % Self.tagCount))")
        }
        for index in [0, 1, 350, Self.tagCount - 1] {
            let expected = stride(from: index + 1, through: Self.itemCount, by: Self.tagCount).map(String.init).joined(separator: ",")
            #expect(dump["Tag \(Self.tagReference(index)) v1"]?[itemsIndex] == "->> " + expected)
        }
    }

    /// One error among the items' lists and one among the tags': the one in the list that
    /// comes first in the file is reported, whichever thread found it.
    @Test(arguments: [false, true])
    func theFirstErrorInFileOrderIsReported(tagsFirst: Bool) throws {
        let text = StoreFiles.document(model, objects: objects(tagsFirst: tagsFirst, itemTags: (60_000, "999999"),
                                                               tagItems: (tagsFirst ? 2 : 600, "999998")))
        let error = StoreFiles.openError(text, model: model, in: directory) as? JSONStoreError
        let expected = tagsFirst
            ? "Tag \(Self.tagReference(2)), property \"items\": no object has reference 999998"
            : "Item 60000, property \"tags\": no object has reference 999999"
        #expect(error?.description == "\(url.path): \(expected)")
    }

    /// After updates of the first tags in the journal, the replay puts their lists behind the
    /// others: the replayed store is the one a checkpoint writes.
    @Test func listsOutOfTheirObjectsOrderAfterAReplayResolveTheSame() throws {
        try Data(StoreFiles.document(model, objects: objects(tagsFirst: true)).utf8).write(to: url)
        let open = try OpenStore(url, model: model, values: [JSONAtomicStore.journalCheckpointBytesOption: "0"])
        let context = open.context()
        let tags = try context.fetch(FetchRequest(entityName: "Tag", sortDescriptors: [SortDescriptor("label")]))
        let first = try #require(tags.first { try $0.get("label", as: String.self) == "tag 0" })
        let second = try #require(tags.first { try $0.get("label", as: String.self) == "tag 1" })
        // Two items of tag 1 move to tag 0; tag 0 is renamed in a second save.
        let moved = try Array(second.objects(forKey: "items").prefix(2))
        try first.setObjects(try first.objects(forKey: "items") + moved, forKey: "items")
        try second.setObjects(try Array(second.objects(forKey: "items").dropFirst(2)), forKey: "items")
        try context.save()
        try first.set("label", "tag 0, renamed")
        try context.save()

        let (expected, replayed) = try open.replayedAndCheckpointed(at: url, in: directory, model: model, records: 2)
        defer { replayed.close() }
        #expect(replayed.dump() == expected)
        let itemsIndex = try #require(model.entitiesByName["Tag"]?.properties.firstIndex { $0.name == "items" })
        let listed = try #require(expected["Tag \(Self.tagReference(0)) v3"]?[itemsIndex]).dropFirst(4).split(separator: ",")
        #expect(listed.count == Self.itemCount / Self.tagCount + 2)
        #expect(Set(listed).isSuperset(of: moved.map { "\($0.objectID.referenceObject)"[...] }))
    }
}
