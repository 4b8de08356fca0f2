import Foundation
import GraphCore
import Testing
@testable import JSONAtomicStore

/// A relationship without an inverse (or with the delete rule noAction) keeps pointing at an
/// object after it is deleted. The file must still open afterwards.
@Suite struct DanglingReferenceTests {
    @Test func deletingTheTargetOfARelationshipWithoutInverseLeavesAStoreThatOpens() throws {
        let model = try CatalogModel.make()
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        do {
            let store = try OpenStore(url, model: model)
            let context = store.context()
            let a = try context.insert("Item", values: ["name": "a"])
            let b = try context.insert("Item", values: ["name": "b"])
            try a.setObject(b, forKey: "favorite")
            try context.save()
            try context.delete(b)
            try context.save()
            store.close()
        }
        let reopened = try OpenStore(url, model: model)
        let context = reopened.context()
        let items = try context.fetch(FetchRequest(entityName: "Item"))
        #expect(items.count == 1)
        #expect(try items.first?.object(forKey: "favorite") == nil)
        #expect(try fileText(url).contains(#""favorite":null"#))
    }

    @Test func aDeletionRolledBackByAFailedSaveKeepsTheReferencesToTheObject() throws {
        let model = try CatalogModel.make()
        let directory = try TemporaryDirectory()
        let url = directory.file("store.json")
        let store = try OpenStore(url, model: model)
        let context = store.context()
        let a = try context.insert("Item", values: ["name": "a"])
        let b = try context.insert("Item", values: ["name": "b"])
        try a.setObject(b, forKey: "favorite")
        try context.save()
        // Deleting b fails to save (the journal append fails), so b stays in the store.
        store.store.journal.failNextAppendAfterWriting = true
        try context.delete(b)
        #expect(throws: (any Error).self) { try context.save() }
        context.rollback()
        try a.set("name", "a2")
        try context.save()
        #expect(try fileText(journalURL(url)).contains(#""favorite":2"#))
        store.close()
        #expect(try fileText(url).contains(#""favorite":2"#))
    }
}
