import Foundation
import Testing
@testable import GraphCore

/// An atomic store that records the fetch requests it gets. With the option `ordered`, it
/// answers as a server would: the first `fetchLimit` results in reverse reference order
/// (an order the context would never produce itself), marked sorted and paged, and counts
/// when asked for a count. With `numbersOnSave`, it gives permanent IDs only as it saves.
private final class RecordingStore: AtomicStore, @unchecked Sendable {
    var requests: [FetchRequest] = []
    var permanentIDRequests = 0

    private var answersInOrder: Bool { options.values["ordered"] == "yes" }

    override var assignsPermanentIDsWhenSaving: Bool { options.values["numbersOnSave"] == "yes" }

    override func fetch(_ request: FetchRequest) throws -> StoreFetchResult {
        requests.append(request)
        var result = try super.fetch(request)
        guard answersInOrder else { return result }
        result.snapshots.sort { $0.objectID.referenceObject.description > $1.objectID.referenceObject.description }
        if request.fetchLimit > 0 { result.snapshots = Array(result.snapshots.prefix(request.fetchLimit)) }
        result.isSortedAndPaged = true
        switch request.resultType {
        case .count: return StoreFetchResult(count: result.snapshots.count, isSortedAndPaged: true)
        case .objectIDs: return StoreFetchResult(faults: result.snapshots.map(\.objectID), isSortedAndPaged: true)
        case .objects: return result
        }
    }

    override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        permanentIDRequests += 1
        return try super.obtainPermanentIDs(for: snapshots)
    }
}

@Suite struct StoreOrderingTests {
    private static func open(_ values: [String: String]) throws -> (StoreCoordinator, RecordingStore) {
        let name = "RecordingStore.\(UUID().uuidString)"
        StoreRegistry.register(RecordingStore.self, as: name)
        let coordinator = StoreCoordinator(model: try MusicModel.make())
        let store = try #require(try coordinator.addPersistentStore(type: name, options: StoreOptions(values: values)) as? RecordingStore)
        let context = ObjectContext(coordinator: coordinator)
        for title in ["a", "b", "c", "d"] { try context.insert("Song", values: ["title": .string(title)]) }
        try context.save()
        store.requests = []
        return (coordinator, store)
    }

    private static func request() -> FetchRequest {
        var request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")])
        request.fetchLimit = 2
        return request
    }

    @Test func withoutUnsavedChangesTheStoreGetsTheWholeRequestAndItsOrderIsKept() throws {
        let (coordinator, store) = try Self.open(["ordered": "yes"])
        let context = ObjectContext(coordinator: coordinator)
        let titles = try context.fetch(Self.request()).map { try $0.get("title") as String }
        // The store's order (reverse references: d, c), not the sort descriptor's (a, b).
        #expect(titles == ["d", "c"])
        #expect(store.requests.last?.fetchLimit == 2)
        #expect(store.requests.last?.sortDescriptors == [SortDescriptor("title")])
        #expect(store.requests.last?.resultType == .objects)

        #expect(try context.fetchObjectIDs(Self.request()).count == 2)
        #expect(store.requests.last?.resultType == .objectIDs)
        #expect(try context.count(for: Self.request()) == 2)
        #expect(store.requests.last?.resultType == .count)
    }

    @Test func withUnsavedChangesTheContextSortsPagesAndCountsItself() throws {
        let (coordinator, store) = try Self.open(["ordered": "yes"])
        let context = ObjectContext(coordinator: coordinator)
        try context.insert("Song", values: ["title": "0"])
        let titles = try context.fetch(Self.request()).map { try $0.get("title") as String }
        #expect(titles == ["0", "a"])
        #expect(store.requests.last?.fetchLimit == 0)
        #expect(store.requests.last?.sortDescriptors == [])
        #expect(try context.count(for: FetchRequest(entityName: "Song")) == 5)
        #expect(store.requests.last?.resultType == .objectIDs)
    }

    @Test func aStoreThatIgnoresTheOrderIsSortedAndPagedByTheContext() throws {
        let (coordinator, store) = try Self.open([:])
        let context = ObjectContext(coordinator: coordinator)
        let titles = try context.fetch(Self.request()).map { try $0.get("title") as String }
        #expect(titles == ["a", "b"])
        #expect(store.requests.last?.fetchLimit == 2)  // offered, and ignored
        #expect(try context.count(for: Self.request()) == 2)
    }

    @Test func aStoreThatNumbersObjectsOnSaveIsNotAskedForIDsBeforehand() throws {
        let (coordinator, store) = try Self.open(["numbersOnSave": "yes"])
        #expect(store.permanentIDRequests == 0)
        let context = ObjectContext(coordinator: coordinator)
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let song = try context.insert("Song", values: ["title": "So What"])
        try song.setObject(album, forKey: "album")
        try context.save()
        #expect(store.permanentIDRequests == 0)
        #expect(!album.objectID.isTemporary && !song.objectID.isTemporary)
        #expect(try song.value(forKey: "album") == .object(album.objectID))
        #expect(try album.value(forKey: "songs") == .objects([song.objectID]))
        let reread = try ObjectContext(coordinator: coordinator).existingObject(with: song.objectID)
        #expect(try reread.value(forKey: "album") == .object(album.objectID))
    }
}
