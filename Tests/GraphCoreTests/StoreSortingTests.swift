import Foundation
import Testing
@testable import GraphCore

/// An incremental store that sorts, pages and counts itself, as a database or a server does:
/// its results say ``StoreFetchResult/isSortedAndPaged``. It sorts by one integer attribute.
private final class SortingStore: IncrementalStore, @unchecked Sendable {
    var rows: [ObjectID: ObjectSnapshot] = [:]
    private var nextReference: Int64 = 1

    override func loadMetadata() throws {}

    override func execute(_ request: StoreRequest) throws -> StoreResponse {
        switch request {
        case .fetch(let fetch):
            var found = rows.values.filter { $0.objectID.entityName == fetch.entityName }
                .sorted { $0.objectID.uriRepresentation < $1.objectID.uriRepresentation }
            if let descriptor = fetch.sortDescriptors.first, let index = found.first?.objectID.entity.index(ofProperty: descriptor.keyPath) {
                found.sort { descriptor.ascending ? Self.number($0.values[index]) < Self.number($1.values[index])
                                                  : Self.number($0.values[index]) > Self.number($1.values[index]) }
            }
            found = Array(found.dropFirst(fetch.fetchOffset))
            if fetch.fetchLimit > 0 { found = Array(found.prefix(fetch.fetchLimit)) }
            if fetch.resultType == .count { return .fetched(StoreFetchResult(count: found.count, isSortedAndPaged: true)) }
            return .fetched(StoreFetchResult(snapshots: found, isSortedAndPaged: true))
        case .save(let save):
            var result = SaveResult()
            for snapshot in save.insertedObjects { rows[snapshot.objectID] = ObjectSnapshot(objectID: snapshot.objectID, version: 1, values: snapshot.values) }
            for snapshot in save.updatedObjects {
                rows[snapshot.objectID] = ObjectSnapshot(objectID: snapshot.objectID, version: snapshot.version + 1, values: snapshot.values)
                result.versions[snapshot.objectID] = snapshot.version + 1
            }
            for snapshot in save.deletedObjects { rows[snapshot.objectID] = nil }
            return .saved(result)
        }
    }

    override func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        guard let row = rows[id] else { throw GraphError.objectNotFound(id) }
        var values: [String: Value] = [:]
        for (index, property) in id.entity.properties.enumerated() { values[property.name] = row.values[index] }
        return IncrementalStoreNode(objectID: id, version: row.version, values: values)
    }

    override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        snapshots.map { snapshot in
            defer { nextReference += 1 }
            return newObjectID(for: snapshot.objectID.entity, referenceObject: .int(nextReference))
        }
    }

    private static func number(_ value: Value) -> Int64 {
        if case .int(let number) = value { return number }
        return .min
    }
}

/// A context with unsaved changes asks its store for every match, unsorted and unpaged, and
/// sorts and pages the merged results itself, even when the store says it sorted and paged
/// (what it sorted and paged was the request without them).
@Suite struct StoreSortingTests {
    /// Items ranked 1 to 10, saved, and a context with none of them registered.
    private static func rankedItems() throws -> (ObjectContext, [Int64: ObjectID]) {
        let name = "SortingStore.\(UUID().uuidString)"
        StoreRegistry.register(SortingStore.self, as: name)
        let model = try ObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("rank", .int64, defaultValue: 0)]),
        ])
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: name)
        let writer = ObjectContext(coordinator: coordinator)
        let items = try (1...10).map { rank in (Int64(rank), try writer.insert("Item", values: ["rank": .int(Int64(rank))])) }
        try writer.save()
        return (ObjectContext(coordinator: coordinator), Dictionary(uniqueKeysWithValues: items.map { ($0.0, $0.1.objectID) }))
    }

    private static func topRanks(_ limit: Int) -> FetchRequest {
        var request = FetchRequest(entityName: "Item", sortDescriptors: [SortDescriptor("rank", ascending: false)])
        request.fetchLimit = limit
        return request
    }

    @Test func withoutChangesTheStoresSortedPageIsTheResult() throws {
        let (context, ids) = try Self.rankedItems()
        #expect(try context.fetchObjectIDs(Self.topRanks(3)) == [ids[10], ids[9], ids[8]])
        #expect(try context.count(for: Self.topRanks(3)) == 3)
    }

    @Test func withUnsavedChangesTheContextSortsAndPagesTheMergedResults() throws {
        let (context, ids) = try Self.rankedItems()
        let added = try context.insert("Item", values: ["rank": 100])
        try context.existingObject(with: try #require(ids[10])).set("rank", Int64(0))

        let top = try context.fetch(Self.topRanks(3))

        #expect(try top.map { try $0.get("rank") as Int64 } == [100, 9, 8])
        #expect(top.first === added)
        #expect(try context.fetchObjectIDs(Self.topRanks(2)) == [added.objectID, try #require(ids[9])])
        #expect(try context.count(for: Self.topRanks(3)) == 3)
    }
}
