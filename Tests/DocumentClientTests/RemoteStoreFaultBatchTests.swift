import DocumentClient
import GraphCore
import Testing

/// RemoteStore's batched faults: a fault that fires loads, in the same `get`, the faults the
/// store handed out after it (up to `prefetch - 1` of them, 99 by default).
@Suite struct RemoteStoreFaultBatchTests {
    @Test func walkingFaultsFromTheMiddleLoadsTheOnesAfterTheFirstInTheSameGet() throws {
        let store = try StoreFixture(.documentServer)
        for index in 0..<300 { _ = try store.context.insert("Song", values: ["title": .string("Song \(index)")]) }
        try store.context.save()

        let context = try store.secondContext()
        let remote = try #require(context.coordinator.persistentStores.first as? RemoteStore)
        var request = FetchRequest(entityName: "Song")
        request.returnsObjectsAsFaults = true
        let faults = try context.fetch(request)
        #expect(faults.count == 300)

        // The last 100: the first of them loads itself and the 99 after it, in one round trip.
        // (It used to load the 99 at the front of the queue instead, and the walk took 3.)
        let before = remote.client.statistics.requests
        let titles = try faults[200...].map { try $0.string("title") }
        #expect(remote.client.statistics.requests - before == 1)
        #expect(Set(titles).count == 100)
    }
}
