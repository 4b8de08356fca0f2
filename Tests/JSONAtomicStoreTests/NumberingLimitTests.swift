import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// References and versions at the end of the 64-bit range (docs/FILE_FORMAT.md, Numbering
/// limits): such a file loads; the save that would need a number past it fails clearly and
/// leaves the file as it was.
@Suite struct NumberingLimitTests {
    static let max = Int(Int64.max)

    static func open(_ text: String, in directory: TemporaryDirectory) throws -> (OpenStore, URL) {
        let url = directory.file("store.json")
        try Data(text.utf8).write(to: url)
        return (try OpenStore(url, model: try CatalogModel.make()), url)
    }

    static func document(objects: String, nextReference: Int = 1) throws -> String {
        StoreFiles.document(try CatalogModel.make(), objects: objects)
            .replacingOccurrences(of: "\"nextReference\":1", with: "\"nextReference\":\(nextReference)")
    }

    @Test func aFileWithReferenceInt64MaxLoadsAndAnInsertFailsNamingTheStoreAndEntity() throws {
        let directory = try TemporaryDirectory()
        let (store, url) = try Self.open(try Self.document(objects: "{\"Item\":[\(StoreFiles.item(Self.max))]}"), in: directory)
        defer { store.close() }
        #expect(store.store.nextReference == Int64.max)
        let context = store.context()
        #expect(try context.count(for: FetchRequest(entityName: "Item")) == 1)
        let before = try fileText(url)
        _ = try context.insert("Item", values: ["name": "new"])
        #expect {
            try context.save()
        } throws: { error in
            guard case GraphError.referencesExhausted(let path, "Item", Int64.max) = error else { return false }
            return path == url.path && (error as? GraphError)?.description.contains("no reference left for a new Item") == true
        }
        #expect(try fileText(url) == before, "nothing was written")

        // The object at the last reference can still be changed; the file keeps saying no reference is left.
        let fresh = store.context()
        let item = try #require(try fresh.fetch(FetchRequest(entityName: "Item")).first)
        try item.setValue(.int(8), forKey: "count")
        try fresh.save()
        #expect(item.version == 2)
        try store.store.checkpoint()
        #expect(try fileText(url).contains("\"nextReference\":\(Self.max)"))
    }

    @Test func theLastReferencesAreGivenThenInsertsFail() throws {
        let directory = try TemporaryDirectory()
        let (store, url) = try Self.open(try Self.document(objects: "{}", nextReference: Self.max - 2), in: directory)
        defer { store.close() }
        let context = store.context()
        let first = try context.insert("Item", values: ["name": "a"])
        let second = try context.insert("Item", values: ["name": "b"])
        try context.save()
        #expect([first, second].map { $0.objectID.referenceObject } == [.int(Int64.max - 2), .int(Int64.max - 1)])
        #expect(store.store.nextReference == Int64.max)
        let before = try fileText(url)
        _ = try context.insert("Item", values: ["name": "c"])
        #expect(throws: GraphError.referencesExhausted(store: url.path, entity: "Item", nextReference: Int64.max)) { try context.save() }
        #expect(try fileText(url) == before)
    }

    @Test func anObjectAtVersionInt64MaxLoadsAndItsUpdateFailsNamingIt() throws {
        let directory = try TemporaryDirectory()
        let objects = "{\"Item\":[\(StoreFiles.item(3, version: Self.max)),\(StoreFiles.item(4))]}"
        let (store, url) = try Self.open(try Self.document(objects: objects, nextReference: 5), in: directory)
        defer { store.close() }
        let context = store.context()
        let items = try context.fetch(FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("name")]))
        #expect(items.map(\.version) == [Int64.max, 1])
        let before = try fileText(url)
        try items[0].setValue(.int(1), forKey: "count")
        try items[1].setValue(.int(1), forKey: "count")
        #expect(throws: GraphError.versionExhausted(items[0].objectID, version: Int64.max)) { try context.save() }
        #expect(try fileText(url) == before, "nothing was written, not even the other object")
        #expect(store.store.cacheNodes().map(\.version).sorted() == [1, Int64.max])

        // Deleting it needs no new version.
        let fresh = store.context()
        try fresh.delete(try fresh.existingObject(with: items[0].objectID))
        try fresh.save()
        #expect(try fresh.count(for: FetchRequest(entityName: "Item")) == 1)
    }
}
