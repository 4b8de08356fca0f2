import Foundation
import GraphCore
import Testing

/// What the server does for a `RemoteStore` when the context has no unsaved changes: it sorts,
/// pages and counts, so that only the objects (or the number) asked for cross the network.
/// With unsaved changes the context asks for every match and merges its changes itself.
@Suite struct RemoteStorePushdownTests {
    static let songCount = 30

    /// A server with ``songCount`` songs whose plays are 0 to 29 in a shuffled order (song n has
    /// plays 7n mod 30), and the song IDs by plays. A reader on a coordinator of its own.
    private struct Songs {
        let store: StoreFixture
        let idsByPlays: [Int64: ObjectID]
        let reader: ObjectContext

        init() throws {
            store = try StoreFixture(.documentServer)
            var songs: [Int64: ManagedObject] = [:]
            for number in 0..<RemoteStorePushdownTests.songCount {
                let plays = Int64(number * 7 % RemoteStorePushdownTests.songCount)
                songs[plays] = try store.context.insert("Song", values: [
                    "title": .string("Song \(number) " + String(repeating: "la", count: 50)), "plays": .int(plays),
                ])
            }
            try store.context.save()
            idsByPlays = songs.mapValues(\.objectID)
            reader = try store.secondContext()
        }

        func ids(plays: [Int64]) -> [ObjectID?] { plays.map { idsByPlays[$0] } }
    }

    private static func byPlaysDescending(limit: Int = 0) -> FetchRequest {
        var request = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays", ascending: false)])
        request.fetchLimit = limit
        return request
    }

    @Test func aSortedFetchWithALimitIsOneRequestForTheTopObjectsOnly() throws {
        let songs = try Songs()
        let client = try songs.reader.remoteClient()

        let (top, limited) = try Traffic.of(client) { try songs.reader.fetch(Self.byPlaysDescending(limit: 5)) }
        let (_, all) = try Traffic.of(client) { try ObjectContext(coordinator: songs.reader.coordinator).fetch(Self.byPlaysDescending()) }

        #expect(limited.requests == 1)
        #expect(try top.map { try $0.get("plays") as Int64 } == [29, 28, 27, 26, 25], "the server's 5, not the first 5 saved")
        #expect(top.map(\.objectID) == songs.ids(plays: [29, 28, 27, 26, 25]))
        #expect(limited.bytes * 4 < all.bytes, "5 of 30 objects came: \(limited) against \(all) for all of them")
    }

    @Test func countIsOneRequestAnsweredWithANumber() throws {
        let songs = try Songs()
        let client = try songs.reader.remoteClient()

        let (count, counting) = try Traffic.of(client) { try songs.reader.count(for: FetchRequest(entityName: "Song")) }
        let (popular, countingSome) = try Traffic.of(client) {
            try songs.reader.count(for: FetchRequest(entityName: "Song", predicate: try .format("plays >= 25")))
        }
        let (_, fetching) = try Traffic.of(client) { try songs.reader.fetch(FetchRequest(entityName: "Song")) }

        #expect(count == Self.songCount)
        #expect(popular == 5)
        #expect(counting.requests == 1 && countingSome.requests == 1)
        #expect(counting.bytes < 100, "\(counting)")
        #expect(counting.bytes * 50 < fetching.bytes, "\(counting) for the count, \(fetching) for the objects")
    }

    @Test func sortedObjectIDsComeInTheServersOrderWithoutLoadingAnyObject() throws {
        let songs = try Songs()
        let client = try songs.reader.remoteClient()
        var request = Self.byPlaysDescending()
        request.fetchOffset = 2
        request.fetchLimit = 4

        let (ids, traffic) = try Traffic.of(client) { try songs.reader.fetchObjectIDs(request) }

        #expect(ids == songs.ids(plays: [27, 26, 25, 24]))
        #expect(traffic.requests == 1, "one fetch, no get")
        #expect(songs.reader.registeredObjects.allSatisfy { $0.isFault })
    }

    @Test func withUnsavedChangesTheResultsIncludeThemAndAreStillRight() throws {
        let songs = try Songs()
        let context = songs.reader
        let loudest = try context.existingObject(with: try #require(songs.idsByPlays[29]))
        try loudest.set("plays", Int64(-1))                      // from first to last
        try context.delete(try context.existingObject(with: try #require(songs.idsByPlays[28])))
        let added = try context.insert("Song", values: ["title": "New", "plays": 100])
        let quiet = try context.existingObject(with: try #require(songs.idsByPlays[0]))
        try quiet.set("plays", Int64(26))                         // ties with the song at 26

        let top = try context.fetch(Self.byPlaysDescending(limit: 4))
        #expect(try top.map { try $0.get("plays") as Int64 } == [100, 27, 26, 26])
        #expect(top.first === added)
        #expect(Set(top.dropFirst(2).map(\.objectID)) == Set(songs.ids(plays: [26, 0]).compactMap { $0 }))

        #expect(try context.count(for: FetchRequest(entityName: "Song")) == Self.songCount)   // -1 deleted, +1 inserted
        #expect(try context.count(for: FetchRequest(entityName: "Song", predicate: try .format("plays >= 25"))) == 5)  // 100, 27, 26, 26, 25
        var bottom = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("plays")])
        bottom.fetchLimit = 2
        #expect(try context.fetchObjectIDs(bottom) == [loudest.objectID, try #require(songs.idsByPlays[1])])
    }
}
