import Foundation
import Testing
@testable import GraphCore
import ServerTestSupport

/// An atomic store that fails its writes while `failing` is set.
private final class IndexTestsFlakyStore: AtomicStore, @unchecked Sendable {
    struct WriteFailed: Error {}
    var failing = false
    override func save() throws {
        if failing { throw WriteFailed() }
    }
}

/// An atomic store that loads items as a store read from a file would.
private final class IndexTestsPreloadedStore: AtomicStore, @unchecked Sendable {
    override func load() throws {
        guard let model, let item = model.entity(named: "Item") else { return }
        let nodes = (1...50).map { n in
            var values = item.initialValues
            values[item.index(ofProperty: "n") ?? 0] = .int(Int64(n))
            values[item.index(ofProperty: "i") ?? 0] = .int(Int64(n % 5))
            return ObjectSnapshot(objectID: objectID(for: item, referenceObject: .int(Int64(n))), version: 1, values: values)
        }
        addCacheNodes(nodes)
        nextReference = 51
        metadata.entityVersionHashes = model.entityVersionHashes
    }
}

/// The indexes of atomic stores: the plans they give, and how saves and loads keep them.
@Suite struct IndexStoreTests {
    /// A container of 100 items: `i` and `u` are `n % 10`, `s` is `"item <n>"`.
    private func container(type: String = "InMemory") throws -> PersistentContainer {
        let container = try PersistentContainer(model: IndexFixture.model(indexed: true), storeType: type)
        let context = container.viewContext
        for n in 0..<100 {
            try context.insert("Item", values: ["n": .int(Int64(n)), "i": .int(Int64(n % 10)), "u": .int(Int64(n % 10)),
                                                "s": .string("item \(n)")])
        }
        try context.save()
        return container
    }

    private func store(_ container: PersistentContainer) throws -> AtomicStore {
        try #require(container.coordinator.persistentStores.first as? AtomicStore)
    }

    private func ns(_ request: FetchRequest, _ container: PersistentContainer) throws -> [Int64] {
        try container.newContext().fetch(request).map { try $0.get("n") }
    }

    @Test func anIndexedEqualityExaminesOnlyTheObjectsWithThatValue() throws {
        let container = try container()
        let request = FetchRequest(entityName: "Item", predicate: .key("i") == 3)
        let plan = try store(container).explain(request)
        #expect(plan.access == .index(name: "byI", key: "i", operation: "=="))
        #expect(plan.objectsExamined == 10)
        #expect(try ns(request, container).sorted() == [3, 13, 23, 33, 43, 53, 63, 73, 83, 93])
        #expect(plan.description == "index byI on i (==), examined 10 objects")
    }

    @Test func anIndexedFetchOfAnEntityWithoutObjectsFindsNothing() throws {
        let container = try PersistentContainer(model: IndexFixture.model(indexed: true))
        let store = try store(container)
        for predicate: GraphCore.Predicate in [.key("i") == 3, .key("s").beginsWith("a") && .key("u") > 1] {
            let request = FetchRequest(entityName: "Item", predicate: predicate)
            #expect(try store.fetch(request).snapshots.isEmpty)
            #expect(try store.explain(request) == FetchPlan(access: .scan, objectsExamined: 0))
        }
        var ordered = FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("i")])
        ordered.fetchLimit = 3
        #expect(try store.fetch(ordered).snapshots.isEmpty)
    }

    @Test func aKeyWithoutAnIndexIsScanned() throws {
        let container = try container()
        let plan = try store(container).explain(FetchRequest(entityName: "Item", predicate: .key("u") == 3))
        #expect(plan == FetchPlan(access: .scan, objectsExamined: 100))
    }

    @Test func aConjunctionUsesItsIndexedTermAndJudgesTheRestOnTheCandidates() throws {
        let container = try container()
        let request = FetchRequest(entityName: "Item", predicate: .key("u") > 0 && .key("s").beginsWith("item 4"))
        let plan = try store(container).explain(request)
        #expect(plan.access == .index(name: "byS", key: "s", operation: "BEGINSWITH"))
        #expect(plan.objectsExamined == 11)  // "item 4", "item 40" … "item 49"
        #expect(try ns(request, container).sorted() == [4, 41, 42, 43, 44, 45, 46, 47, 48, 49])
    }

    @Test func anOrderByAnIndexedKeyWithALimitStopsAfterThePage() throws {
        let container = try container()
        var request = FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("s", ascending: false)])
        request.fetchLimit = 3
        request.fetchOffset = 1
        let plan = try store(container).explain(request)
        #expect(plan.access == .index(name: "byS", key: "s", operation: "ORDER BY"))
        #expect(plan.isSortedByIndex)
        #expect(plan.objectsExamined == 4)
        #expect(try ns(request, container) == [98, 97, 96])
    }

    @Test func aRangeOnTheSortedKeyWalksOnlyThatRangeInOrder() throws {
        let container = try container()
        var request = FetchRequest(entityName: "Item", predicate: .key("i") >= 8, sortDescriptors: [SortDescriptor("i")])
        request.fetchLimit = 12
        let plan = try store(container).explain(request)
        #expect(plan.access == .index(name: "byI", key: "i", operation: ">="))
        #expect(plan.objectsExamined == 12)
        let found = try container.newContext().fetch(request).map { try $0.get("i") as Int64 }
        #expect(found == Array(repeating: 8, count: 10) + [9, 9])
    }

    @Test func updatesAndDeletesMoveObjectsInTheIndex() throws {
        let container = try container()
        let context = container.newContext()
        let three = try context.fetch(FetchRequest(entityName: "Item", predicate: .key("n") == 3))
        let thirteen = try context.fetch(FetchRequest(entityName: "Item", predicate: .key("n") == 13))
        try #require(three.count == 1 && thirteen.count == 1)
        try three[0].setValue(.int(42), forKey: "i")
        try context.delete(thirteen[0])
        try context.save()
        #expect(try ns(FetchRequest(entityName: "Item", predicate: .key("i") == 3), container).sorted() == [23, 33, 43, 53, 63, 73, 83, 93])
        #expect(try ns(FetchRequest(entityName: "Item", predicate: .key("i") == 42), container) == [3])
    }

    @Test func aSaveThatFailsToWriteLeavesTheIndexAsItWas() throws {
        let name = "IndexStoreTests.flaky.\(UUID().uuidString)"
        StoreRegistry.register(IndexTestsFlakyStore.self, as: name)
        let container = try container(type: name)
        let store = try #require(try store(container) as? IndexTestsFlakyStore)
        let context = container.newContext()
        let item = try #require(try context.fetch(FetchRequest(entityName: "Item", predicate: .key("n") == 7)).first)
        try item.setValue(.int(77), forKey: "i")
        try context.insert("Item", values: ["n": 1000, "i": 77])
        store.failing = true
        #expect(throws: IndexTestsFlakyStore.WriteFailed.self) { try context.save() }
        store.failing = false
        #expect(try ns(FetchRequest(entityName: "Item", predicate: .key("i") == 77), container).isEmpty)
        #expect(try ns(FetchRequest(entityName: "Item", predicate: .key("i") == 7), container).sorted() == [7, 17, 27, 37, 47, 57, 67, 77, 87, 97])
    }

    @Test func nodesALoaderAddsAreIndexed() throws {
        let name = "IndexStoreTests.preloaded.\(UUID().uuidString)"
        StoreRegistry.register(IndexTestsPreloadedStore.self, as: name)
        let coordinator = StoreCoordinator(model: try IndexFixture.model(indexed: true))
        let store = try #require(try coordinator.addPersistentStore(type: name) as? AtomicStore)
        let request = FetchRequest(entityName: "Item", predicate: .key("i") == 2)
        #expect(try store.explain(request).objectsExamined == 10)
        #expect(try store.fetch(request).snapshots.count == 10)
    }
}
