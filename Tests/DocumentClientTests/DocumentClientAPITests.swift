import DocumentClient
import Foundation
import GraphCore
import Testing

/// The async API of `DocumentClient` against a real `docserver`, with GraphCore's types:
/// requests and snapshots go out, snapshots, IDs and counts come back.
@Suite struct DocumentClientAPITests {
    /// A server of the behaviour model (the fixture's) and a client of its own.
    private struct Connected {
        let store: StoreFixture
        let client: DocumentClient

        init() throws {
            store = try StoreFixture(.documentServer)
            let server = try #require(store.server)
            client = DocumentClient(configuration: ClientConfiguration(host: server.host, port: Int(server.port), requestTimeout: 10))
        }

        var model: ObjectModel { store.model }

        func entity(_ name: String) throws -> EntityDescription { try #require(model.entity(named: name)) }
    }

    /// A snapshot with these values; to-many relationships left out are empty, the rest nil.
    private static func snapshot(_ id: ObjectID, version: Int64 = 0, _ values: [String: Value]) -> ObjectSnapshot {
        ObjectSnapshot(objectID: id, version: version, values: id.entity.properties.map { property in
            if let value = values[property.name] { return value }
            if case .relationship(let relationship) = property, relationship.isToMany { return .objects([]) }
            return .null
        })
    }

    @Test func aRequestAfterShutdownFailsAtOnceInsteadOfWaitingForever() async throws {
        let connected = try Connected()
        _ = try await connected.client.hello()
        try await connected.client.shutdown()
        // Before: the request's futures chained on the stopped event loop and never completed.
        let client = connected.client, model = connected.model
        let refused: [(String, @Sendable () async throws -> Void)] = [
            ("hello", { _ = try await client.hello() }),
            ("ping", { _ = try await client.ping() }),
            ("model", { _ = try await client.model() }),
            ("count", { _ = try await client.count(FetchRequest(entityName: "Song"), model: model) }),
        ]
        for (name, request) in refused {
            let error = await #expect(throws: DocumentClientError.self, "\(name) after shutdown") { try await request() }
            guard case .shutDown? = error else {
                Issue.record("\(name) after shutdown failed with \(String(describing: error)), not shutDown")
                continue
            }
        }
    }

    @Test func helloNamesTheServerItsStoreAndItsModel() async throws {
        let connected = try Connected()
        defer { connected.client.shutdownInBackground() }

        let hello = try await connected.client.hello()

        #expect(hello.server == "docserver")
        #expect(hello.protocolVersion == 1)
        #expect(hello.storeUUID == (try connected.store.storeUUIDInFile()))
        #expect(hello.modelHash == connected.model.versionHash)
        #expect(hello.seq == 0)  // nothing committed yet
        #expect(connected.client.lastHello == hello)
        #expect(connected.client.statistics.connections == 1)
        #expect(connected.client.statistics.requests == 1)
    }

    @Test func pingIsOneRoundTripAndSaysHowLongItTook() async throws {
        let connected = try Connected()
        defer { connected.client.shutdownInBackground() }
        _ = try await connected.client.hello()

        let seconds = try await connected.client.ping()

        // Only a lower bound: in a parallel test run the task may resume long after the answer came.
        #expect(seconds > 0)
        #expect(connected.client.statistics.requests == 2)
    }

    @Test func theServersModelIsTheLocalModel() async throws {
        let connected = try Connected()
        defer { connected.client.shutdownInBackground() }

        let served = try await connected.client.model()

        #expect(served.versionHash == connected.model.versionHash)
        #expect(served.entityVersionHashes == connected.model.entityVersionHashes)
    }

    @Test func savedObjectsComeBackFromGetFetchFetchIDsAndCount() async throws {
        let connected = try Connected()
        let client = connected.client, model = connected.model
        defer { client.shutdownInBackground() }
        let album = ObjectID.temporary(for: try connected.entity("Album"))
        let songs = try (0..<2).map { _ in ObjectID.temporary(for: try connected.entity("Song")) }

        let saved = try await client.save(SaveChangesRequest(insertedObjects: [
            Self.snapshot(album, ["title": "Kind of Blue", "songs": .objects(songs)]),
            Self.snapshot(songs[0], ["title": "So What", "plays": 7, "album": .object(album)]),
            Self.snapshot(songs[1], ["title": "Blue in Green", "plays": 3, "album": .object(album)]),
        ]), model: model)

        #expect(saved.seq == 1)
        let uuid = try #require(try connected.store.storeUUIDInFile())
        let albumID = try #require(saved.permanentIDs[album])
        let songIDs = try songs.map { try #require(saved.permanentIDs[$0]) }
        for id in [albumID] + songIDs {
            #expect(id.uriRepresentation.hasPrefix("graph://\(uuid)/\(id.entityName)/"))
            #expect(saved.versions[id] == 1)
        }

        let got = try await client.get([albumID, songIDs[1]], model: model)
        #expect(got.map { $0?.objectID } == [albumID, songIDs[1]])
        #expect(got.first??.value(forKey: "songs") == .objects(songIDs))
        #expect(got.last??.value(forKey: "album") == .object(albumID), "the server kept the inverse")
        #expect(got.last??.value(forKey: "plays") == .int(3))

        let byTitle = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title", ascending: false)])
        let fetched = try await client.fetch(byTitle, model: model)
        #expect(fetched.map { $0.value(forKey: "title") } == [.string("So What"), .string("Blue in Green")])
        #expect(fetched.allSatisfy { $0.version == 1 })
        #expect(try await client.fetchIDs(byTitle, model: model) == songIDs)
        #expect(try await client.count(FetchRequest(entityName: "Song", predicate: try .format("plays > 5")), model: model) == 1)
        #expect(try await client.count(FetchRequest(entityName: "Album"), model: model) == 1)
    }

    @Test func updatesAndDeletesAnswerNewVersionsAndWhatElseChanged() async throws {
        let connected = try Connected()
        let client = connected.client, model = connected.model
        defer { client.shutdownInBackground() }
        let album = ObjectID.temporary(for: try connected.entity("Album"))
        let songs = try (0..<2).map { _ in ObjectID.temporary(for: try connected.entity("Song")) }
        let inserted = try await client.save(SaveChangesRequest(insertedObjects: [
            Self.snapshot(album, ["title": "Kind of Blue", "songs": .objects(songs)]),
            Self.snapshot(songs[0], ["title": "So What", "plays": 7, "album": .object(album)]),
            Self.snapshot(songs[1], ["title": "Blue in Green", "plays": 3, "album": .object(album)]),
        ]), model: model)
        let albumID = try #require(inserted.permanentIDs[album])
        let (kept, dropped) = (try #require(inserted.permanentIDs[songs[0]]), try #require(inserted.permanentIDs[songs[1]]))
        let read = try await client.get([kept, dropped], model: model)
        var renamed = try #require(read[0])
        renamed.values[try #require(kept.entity.index(ofProperty: "title"))] = .string("So What (take 2)")

        let changed = try await client.save(SaveChangesRequest(updatedObjects: [renamed], deletedObjects: [try #require(read[1])]), model: model)

        #expect(changed.versions[kept] == 2)
        #expect(changed.deleted == [dropped])
        #expect(changed.updated == [albumID], "the delete took the song out of its album")
        let after = try await client.get([kept, dropped, albumID], model: model)
        #expect(after[0]?.value(forKey: "title") == .string("So What (take 2)"))
        #expect(after[0]?.version == 2)
        #expect(after[1] == nil)
        #expect(after[2]?.value(forKey: "songs") == .objects([kept]))

        // The same update again, still at version 1, is the server's conflict.
        let error = await #expect(throws: DocumentClientError.self) {
            try await client.save(SaveChangesRequest(updatedObjects: [renamed]), model: model)
        }
        guard case .server(let refusal)? = error else {
            Issue.record("expected the server's conflict, got \(String(describing: error))")
            return
        }
        #expect(refusal.code == RemoteError.Code.conflict)
        #expect(refusal.method == "save")
    }
}
