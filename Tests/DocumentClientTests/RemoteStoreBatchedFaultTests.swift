import DocumentClient
import Foundation
import GraphCore
import Testing

/// Faults over the network: when one fires, the `RemoteStore` loads it in one `get` together
/// with the faults it handed out after it, up to the `prefetch` option (100 by default), so
/// that walking a fetch's results costs one round trip per batch instead of one per object.
///
/// Every reader here is a context on a coordinator of its own (``StoreFixture/secondContext(options:)``):
/// its store has cached nothing of the objects the fixture's context saved.
@Suite struct RemoteStoreBatchedFaultTests {
    static let songCount = 250

    /// A server holding ``songCount`` songs, "Song 000" to "Song 249" (plays = the number).
    private static func serverWithSongs() throws -> StoreFixture {
        let store = try StoreFixture(.documentServer)
        for number in 0..<songCount {
            _ = try store.context.insert("Song", values: ["title": .string(title(number)), "plays": .int(Int64(number))])
        }
        try store.context.save()
        return store
    }

    private static func title(_ number: Int) -> String { String(format: "Song %03d", number) }

    /// Fetches every song as a fault (one `fetch`, answered with IDs only), then reads the
    /// title of each in the order fetched; returns the titles and the traffic of the reading
    /// alone, i.e. the `get` round trips (`hello` went when the store was added, the `fetch`
    /// before the reading began).
    private static func readTitlesOfFaults(in context: ObjectContext) throws -> (titles: [String], reading: Traffic) {
        let client = try context.remoteClient()
        var request = FetchRequest(entityName: "Song")
        request.returnsObjectsAsFaults = true
        let (faults, fetching) = try Traffic.of(client) { try context.fetch(request) }
        #expect(fetching.requests == 1)
        #expect(faults.count == songCount)
        #expect(faults.allSatisfy { $0.isFault })
        let (titles, reading) = try Traffic.of(client) { try faults.map { try $0.string("title") } }
        #expect(faults.allSatisfy { !$0.isFault })
        return (titles, reading)
    }

    @Test func readingFaultsInOrderLoadsThemInBatchesOfOneHundred() throws {
        let store = try Self.serverWithSongs()
        let (titles, reading) = try Self.readTitlesOfFaults(in: try store.secondContext())

        #expect(reading.requests == 3, "250 faults in gets of 100, 100 and 50")
        #expect(Set(titles) == Set((0..<Self.songCount).map(Self.title)))
    }

    @Test func withPrefetchOneEveryFaultIsARoundTripOfItsOwn() throws {
        let store = try Self.serverWithSongs()
        let (titles, reading) = try Self.readTitlesOfFaults(in: try store.secondContext(options: ["prefetch": "1"]))

        #expect(reading.requests == Self.songCount)
        #expect(Set(titles) == Set((0..<Self.songCount).map(Self.title)))
    }

    @Test func objectsFetchedWithTheirValuesAreReadWithoutFurtherRequests() throws {
        let store = try Self.serverWithSongs()
        let context = try store.secondContext()
        let client = try context.remoteClient()

        let (songs, fetching) = try Traffic.of(client) { try context.fetch(FetchRequest(entityName: "Song")) }
        let (plays, reading) = try Traffic.of(client) {
            try songs.map { (try $0.string("title"), try $0.get("plays") as Int64) }
        }

        #expect(fetching.requests == 1)
        #expect(reading.requests == 0)
        #expect(songs.count == Self.songCount)
        #expect(plays.allSatisfy { Self.title(Int($0.1)) == $0.0 })
    }

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
