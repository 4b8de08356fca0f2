import Foundation
import GraphCore
import Testing

/// The row cache of a `RemoteStore`: it keeps the values last read or saved of each object at
/// their version, and re-reading an object sends that version (`get` with `versions`). An
/// object still at it comes back without its values; a changed one with its new values.
@Suite struct RemoteStoreRowCacheTests {
    /// A title long enough that an answer with the values is far bigger than one without.
    static let longTitle = String(repeating: "la ", count: 1_000)

    /// A saved song with a long title, and a reader on a coordinator of its own that loaded it.
    private struct LoadedSong {
        let store: StoreFixture
        let id: ObjectID
        let reader: ObjectContext
        let song: ManagedObject
        /// The traffic of loading it: one `get` with the values.
        let loading: Traffic

        init() throws {
            let store = try StoreFixture(.documentServer)
            let saved = try store.context.insert("Song", values: ["title": .string(RemoteStoreRowCacheTests.longTitle), "plays": 1])
            try store.context.save()
            let id = saved.objectID
            let reader = try store.secondContext()
            (song, loading) = try Traffic.of(try reader.remoteClient()) {
                let song = try reader.existingObject(with: id)
                _ = try song.string("title")
                return song
            }
            (self.store, self.id, self.reader) = (store, id, reader)
        }

        /// Refreshes the song (mergeChanges: false) and reads its title again.
        func refreshAndRead() throws -> (title: String, traffic: Traffic) {
            try reader.refresh(song, mergeChanges: false)
            #expect(song.isFault)
            return try Traffic.of(try reader.remoteClient()) { try song.string("title") }
        }
    }

    @Test func rereadingAnUnchangedObjectIsOneGetAnsweredWithoutItsValues() throws {
        let loaded = try LoadedSong()
        #expect(loaded.loading.requests == 1)
        #expect(loaded.loading.bytes > Self.longTitle.utf8.count)

        let (title, rereading) = try loaded.refreshAndRead()

        #expect(rereading.requests == 1)
        #expect(rereading.bytes * 10 < loaded.loading.bytes, "\(rereading) to re-read, \(loaded.loading) to load")
        #expect(title == Self.longTitle)
        #expect(loaded.song.version == 1)
    }

    @Test func rereadingAnObjectAnotherCoordinatorChangedBringsItsNewValues() throws {
        let loaded = try LoadedSong()
        let writer = try loaded.store.context.existingObject(with: loaded.id)
        try writer.set("title", "Changed elsewhere")
        try loaded.store.context.save()

        let (title, rereading) = try loaded.refreshAndRead()
        #expect(title == "Changed elsewhere")
        #expect(loaded.song.version == 2)
        #expect(rereading.requests == 1)

        // The new values are the row now: reading once more costs no values.
        let (again, unchanged) = try loaded.refreshAndRead()
        #expect(again == "Changed elsewhere")
        #expect(unchanged.requests == 1)
        #expect(unchanged.bytes < rereading.bytes)
    }

    @Test func whatAContextSavedIsTheRowAtTheServersNewVersion() throws {
        let loaded = try LoadedSong()
        try loaded.song.set("plays", Int64(2))
        try loaded.reader.save()
        #expect(loaded.song.version == 2)

        let (title, rereading) = try loaded.refreshAndRead()

        #expect(title == Self.longTitle)
        #expect(try loaded.song.get("plays") as Int64 == 2)
        #expect(loaded.song.version == 2)
        #expect(rereading.requests == 1)
        #expect(rereading.bytes * 10 < loaded.loading.bytes, "the saved values at version 2 were kept: \(rereading)")
    }

    @Test func refreshingManyObjectsThenReadingThemIsBatchedAndSendsOnlyVersions() throws {
        let store = try StoreFixture(.documentServer)
        for number in 0..<250 { _ = try store.context.insert("Song", values: ["title": .string("Song \(number)")]) }
        try store.context.save()
        let reader = try store.secondContext()
        let client = try reader.remoteClient()
        let (songs, load) = try Traffic.of(client) { try reader.fetch(FetchRequest(entityName: "Song")) }
        #expect(songs.count == 250 && load.requests == 1)

        for song in songs { try reader.refresh(song, mergeChanges: false) }
        let again = try Traffic.of(client) { for song in songs { _ = try song.string("title") } }
        // 250 refreshed faults: one `get` per 100 of them, each object answered by its version alone.
        #expect(again.requests == 3, "\(again)")
        #expect(again.bytes < load.bytes, "\(again) against the first load's \(load)")
    }

    @Test func whatAContextSavedIsKeptAsTheServerKeepsItWithDatesToTheMillisecond() throws {
        let store = try StoreFixture(.documentServer)
        let released = Date(timeIntervalSince1970: 1_000_000_000.123_456)   // finer than the wire's milliseconds
        let album = try store.context.insert("Album", values: ["title": "Kind of Blue", "released": .date(released)])
        try store.context.save()
        try store.context.refresh(album, mergeChanges: false)
        let refreshed = try album.value(forKey: "released")   // unchanged on the server: the row answers
        let elsewhere = try store.secondContext().existingObject(with: album.objectID).value(forKey: "released")
        #expect(refreshed == elsewhere)
        #expect(refreshed != .date(released))
    }
}
