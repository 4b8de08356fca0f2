import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// Files above `StoreFileReader.parallelThreshold` are parsed in ranges on every core: the same
/// results and the same errors as on one.
@Suite struct LargeFileTests {
    let model: ObjectModel
    let directory: TemporaryDirectory
    var url: URL { directory.file("store.json") }

    init() throws {
        model = try CatalogModel.make()
        directory = try TemporaryDirectory()
    }

    /// The objects text of a large file: `count` items, each in a pair of twins, with a note.
    func largeObjects(_ count: Int, last: String = "") -> String {
        let note = String(repeating: "x", count: 300)
        var items: [String] = []
        items.reserveCapacity(count)
        for ref in 1...count {
            let twin = ref % 2 == 1 ? ref + 1 : ref - 1
            items.append(StoreFiles.item(ref, "\"twin\":\(twin),\"note\":\"\(note) \(ref)\",\"ratio\":\(Double(ref) / 7)"))
        }
        return "{\"Item\":[" + items.joined(separator: ",") + last + "]}"
    }

    @Test func aLargeFileLoadsOnTwoThreadsAndSavesTheSameBytes() throws {
        let text = StoreFiles.document(model, objects: largeObjects(20_000))
        #expect(text.utf8.count > StoreFileReader.parallelThreshold)
        try Data(text.utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        #expect(open.store.cacheNodeCount == 20_000)
        let context = open.context()
        let request = FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("name")])
        let first = try #require(try context.fetch(request).first { try $0.get("name", as: String.self) == "item 1" })
        #expect(try first.object(forKey: "twin")?.get("name", as: String.self) == "item 2")
        let saved = directory.file("copy.json")
        try FileManager.default.copyItem(at: url, to: saved)
        try open.store.save()
        let reopened = try fileText(url)
        #expect(reopened.contains("\"ref\":20000,"))
        #expect(reopened.utf8.count > 0)
        // Saving what was loaded again gives the same bytes as the first save.
        let once = try Data(contentsOf: url)
        try open.store.save()
        #expect(try Data(contentsOf: url) == once)
    }

    @Test func errorsInALargeFileAreTheSameAsInASmallOne() throws {
        let objects = largeObjects(20_000)
        // A store error late in the file.
        let dangling = StoreFiles.document(model, objects: largeObjects(20_000, last: "," + StoreFiles.item(20_001, "\"owner\":99999")))
        #expect((StoreFiles.openError(dangling, model: model, in: directory) as? JSONStoreError)?.description
            == "\(url.path): Item 20001, property \"owner\": no object has reference 99999")
        // A shape error, with its place.
        let shape = StoreFiles.document(model, objects: objects).replacingOccurrences(of: "\"objects\":{", with: "\"objects\":{\"Tag\":5,")
        let shapeError = StoreFiles.openError(shape, model: model, in: directory) as? JSONStoreError
        guard case .notAStoreFile(_, let reason)? = shapeError else {
            Issue.record("expected notAStoreFile, got \(String(describing: shapeError))")
            return
        }
        let tag = try #require(shape.range(of: "\"Tag\":5"))
        let offset = shape.utf8.distance(from: shape.startIndex, to: tag.upperBound)  // just after the 5
        #expect(reason == "\"objects\".\"Tag\" must be an array of objects, found 5 (at byte \(offset), line 1, column \(offset + 1))")
        // A syntax error at the end comes after a store error before it, and alone is reported with its place.
        let truncated = String(StoreFiles.document(model, objects: objects).dropLast(3))
        guard case .invalidJSON(_, let end, 1, _, _)? = StoreFiles.openError(truncated, model: model, in: directory) as? JSONStoreError else {
            Issue.record("a truncated file was accepted")
            return
        }
        #expect(end == truncated.utf8.count)
        let both = dangling.replacingOccurrences(of: "]}}\n", with: "]}")
        #expect((StoreFiles.openError(both, model: model, in: directory) as? JSONStoreError)?.description
            .contains("invalid JSON") == true)
    }

    @Test func aLargeStoreIsWrittenOnThreeThreadsInTheOneDeterministicForm() throws {
        // 70,000 tags (more than four segments of the parallel writer) and items, in the
        // writer's exact form: loading and saving must give the same bytes.
        let count = 70_000
        var tags: [String] = []
        tags.reserveCapacity(count)
        for ref in 3...(count + 2) {
            let items = ref == 3 ? "[1,2]" : "[]"
            tags.append("{\"ref\":\(ref),\"version\":\(ref % 5 + 1),\"values\":{\"label\":\"tag \(ref) ü\",\"items\":\(items)}}")
        }
        func item(_ ref: Int) -> String {
            "{\"ref\":\(ref),\"version\":1,\"values\":{\"name\":\"i\(ref)\",\"count\":7,\"small\":null,\"medium\":null,"
                + "\"large\":null,\"ratio\":null,\"weight\":null,\"price\":null,\"note\":null,\"active\":null,\"added\":null,"
                + "\"blob\":null,\"uid\":null,\"link\":null,\"score\":1.5,\"owner\":null,\"twin\":null,\"parts\":[],"
                + "\"tags\":[3],\"pet\":null,\"favorite\":null}}"
        }
        let objects = "{\"Item\":[\(item(1)),\(item(2))],\"Tag\":[" + tags.joined(separator: ",") + "]}"
        let text = StoreFiles.document(model, objects: objects)
            .replacingOccurrences(of: "\"nextReference\":1,", with: "\"nextReference\":\(count + 3),")
        try Data(text.utf8).write(to: url)
        let open = try OpenStore(url, model: model)
        #expect(open.store.cacheNodeCount == count + 2)
        try open.store.save()
        let saved = try fileText(url)
        #expect(saved.utf8.count == text.utf8.count)
        #expect(saved == text)
    }
}
