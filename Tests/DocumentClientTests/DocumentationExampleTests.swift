import DocumentClient
import Foundation
import GraphCore
import ServerTestSupport
import Testing

/// The code of the DocC getting-started article (`DocumentClient.docc/GettingStarted.md`),
/// step by step as written there, against the real `docserver` serving its built-in sample
/// model with the article's token, so that the article cannot drift from the API. Only
/// public API is used (no `@testable`), as a reader's code would. Where the article says
/// `127.0.0.1:7878`, the test uses the port its server was given.
@Suite struct DocumentationExampleTests {
    static let token = "s3cret"

    /// "Start a server": `docserver serve --auth-token s3cret` on a new store file, sample model.
    private static func startServer() throws -> ServerProcess {
        try ServerProcess(in: try TemporaryDirectory(), arguments: ["--auth-token", token])
    }

    private static func url(of server: ServerProcess) -> URL? {
        URL(string: "docstore://\(server.host):\(server.port)")
    }

    /// "Add the server as a store", with the article's options (and more, when given).
    private static func remoteCoordinator(_ model: ObjectModel, server: ServerProcess,
                                          options: [String: String] = [:]) throws -> StoreCoordinator {
        RemoteStore.register()
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(
            type: RemoteStore.storeType, at: url(of: server),
            options: StoreOptions(values: ["token": token, "requestTimeout": "10", "prefetch": "50"]
                .merging(options) { _, new in new }))
        return coordinator
    }

    /// The server's model, as the client reads it.
    private static func model(of server: ServerProcess) async throws -> ObjectModel {
        let client = DocumentClient(configuration: ClientConfiguration(
            host: server.host, port: Int(server.port), token: token, requestTimeout: 10))
        defer { client.shutdownInBackground() }
        return try await client.model()
    }

    /// "Work in a context": the album and its three songs, saved.
    private static func saveKindOfBlue(in context: ObjectContext) throws {
        let album = try context.insert("Album", values: ["title": "Kind of Blue"])
        let tracks: [(title: String, plays: Int64)] = [("So What", 12), ("Freddie Freeloader", 3), ("Blue in Green", 7)]
        for (title, plays) in tracks {
            let song = try context.insert("Song", values: ["title": .string(title), "plays": .int(plays)])
            try song.setObject(album, forKey: "album")
        }
        try context.save()
    }

    private static func requests(of coordinator: StoreCoordinator) throws -> Int {
        try #require(coordinator.persistentStores.first as? RemoteStore).client.statistics.requests
    }

    // MARK: - The async client

    @Test func theAsyncClientSaysHelloSavesGetsFetchesAndCountsAsTheArticleSays() async throws {
        let server = try Self.startServer()

        // "Connect and say hello".
        let client = DocumentClient(configuration: ClientConfiguration(
            host: server.host, port: Int(server.port), token: "s3cret", requestTimeout: 10))
        let hello = try await client.hello()
        #expect(hello.server == "docserver")
        #expect(hello.protocolVersion == 1)
        let model = try await client.model()
        #expect(model.versionHash == hello.modelHash)

        // "Save, get, fetch and count".
        let songEntity = try #require(model.entity(named: "Song"))
        let temporary = ObjectID.temporary(for: songEntity)
        let values: [Value] = songEntity.properties.map { property in
            switch property.name {
            case "title": return .string("Feeling Good")
            case "plays": return .int(12)
            default: return property.relationship?.isToMany == true ? .objects([]) : .null
            }
        }
        let saved = try await client.save(SaveChangesRequest(insertedObjects: [
            ObjectSnapshot(objectID: temporary, version: 0, values: values),
        ]), model: model)
        let id = try #require(saved.permanentIDs[temporary])
        #expect(saved.versions[id] == 1)
        #expect(id.uriRepresentation.hasPrefix("graph://\(hello.storeUUID)/Song/"))

        let got = try await client.get([id], model: model)
        #expect(got[0]?.value(forKey: "title") == .string("Feeling Good"))

        let popular = FetchRequest(entityName: "Song", predicate: try .format("plays > %d", 10),
                                   sortDescriptors: [SortDescriptor("title")])
        let songs = try await client.fetch(popular, model: model)
        let ids = try await client.fetchIDs(popular, model: model)
        let count = try await client.count(popular, model: model)
        #expect(songs.map(\.objectID) == [id])
        #expect(ids == [id])
        #expect(count == 1)
        #expect(try await client.ping() > 0)

        // hello, model, save, get, fetch, fetch, fetch, ping: one connection.
        #expect(client.statistics.requests == 8)
        #expect(client.statistics.connections == 1)
        #expect(client.statistics.bytesReceived > 0)

        try await client.shutdown()
    }

    // MARK: - The remote store

    @Test func aRemoteStoreSavesAndFetchesInAContextAsTheArticleSays() async throws {
        let server = try Self.startServer()
        let model = try await Self.model(of: server)
        try Self.inAContext(model, server: server)
    }

    /// The synchronous part of "Work in a context" (a store's calls wait for their round trip).
    private static func inAContext(_ model: ObjectModel, server: ServerProcess) throws {
        let coordinator = try remoteCoordinator(model, server: server)
        let context = ObjectContext(coordinator: coordinator)
        let settings = try #require(coordinator.persistentStores.first as? RemoteStore).settings
        #expect(settings.prefetch == 50)
        #expect(settings.client.requestTimeout == 10)
        #expect(settings.client.token == token)

        let before = try requests(of: coordinator)
        try saveKindOfBlue(in: context)
        #expect(try requests(of: coordinator) == before + 1, "one save")

        var request = FetchRequest(entityName: "Song", predicate: try .format("album.title == %@", "Kind of Blue"),
                                   sortDescriptors: [SortDescriptor("plays", ascending: false)])
        request.fetchLimit = 2
        let reader = ObjectContext(coordinator: coordinator)
        let top = try reader.fetch(request)
        let albums = try reader.count(for: FetchRequest(entityName: "Album"))
        #expect(try top.map { try $0.get("title") as String } == ["So What", "Blue in Green"])
        #expect(albums == 1)
        #expect(try requests(of: coordinator) == before + 3, "one fetch and one count")
        let album = try #require(try reader.fetch(FetchRequest(entityName: "Album")).first)
        #expect(try album.objects(forKey: "songs").map { try $0.get("title") as String }
                == ["So What", "Freddie Freeloader", "Blue in Green"])
    }

    @Test func faultsLoadInBatchesOfPrefetchAsTheArticleSays() async throws {
        let server = try Self.startServer()
        let model = try await Self.model(of: server)
        try Self.faultsInBatches(model, server: server)
    }

    private static func faultsInBatches(_ model: ObjectModel, server: ServerProcess) throws {
        try saveKindOfBlue(in: ObjectContext(coordinator: try remoteCoordinator(model, server: server)))
        let readerCoordinator = try remoteCoordinator(model, server: server, options: ["prefetch": "2"])
        let reader = ObjectContext(coordinator: readerCoordinator)

        var faulting = FetchRequest(entityName: "Song", sortDescriptors: [SortDescriptor("title")])
        faulting.returnsObjectsAsFaults = true
        let beforeFetch = try requests(of: readerCoordinator)
        let faults = try reader.fetch(faulting)
        #expect(faults.count == 3)
        #expect(faults.allSatisfy { $0.isFault })
        let beforeReading = try requests(of: readerCoordinator)
        #expect(beforeReading == beforeFetch + 1, "one fetch")
        let titles = try faults.map { try $0.get("title") as String }
        #expect(titles == ["Blue in Green", "Freddie Freeloader", "So What"])
        #expect((readerCoordinator.persistentStores.first as? RemoteStore)?.client.statistics.requests == beforeReading + 2,
                "two gets: 2 songs, then 1")
    }

    @Test func aConflictIsGraphErrorsAndObjectTrumpsMergesItAsTheArticleSays() async throws {
        let server = try Self.startServer()
        let model = try await Self.model(of: server)
        try Self.conflictAndMerge(model, server: server)
    }

    private static func conflictAndMerge(_ model: ObjectModel, server: ServerProcess) throws {
        let context = ObjectContext(coordinator: try remoteCoordinator(model, server: server))
        try saveKindOfBlue(in: context)
        let soWhat = try #require(try context.fetch(FetchRequest(entityName: "Song", predicate: try .format("title == 'So What'"))).first).objectID
        let editor = ObjectContext(coordinator: try remoteCoordinator(model, server: server))
        _ = try editor.existingObject(with: soWhat)   // both read version 1

        // As in the article:
        try context.existingObject(with: soWhat).set("title", "So What (take 2)")
        try editor.existingObject(with: soWhat).set("plays", 99)
        try editor.save()

        var currentVersions: [Int64?] = []
        do {
            try context.save()
            Issue.record("the second save was expected to conflict")
        } catch GraphError.conflict(let conflicts) {
            currentVersions = conflicts.map(\.currentVersion)
        }
        #expect(currentVersions == [2])
        context.mergePolicy = .objectTrumps
        try context.save()

        let check = ObjectContext(coordinator: try remoteCoordinator(model, server: server))
        let song = try check.existingObject(with: soWhat)
        #expect(try song.get("title") as String == "So What (take 2)")
        #expect(try song.get("plays") as Int64 == 99)
    }

    // MARK: - Errors

    @Test func theServersRefusalsCarryTheirTypedCodesAsTheArticleSays() async throws {
        let server = try Self.startServer()
        let client = DocumentClient(configuration: ClientConfiguration(
            host: server.host, port: Int(server.port), token: "s3cret", requestTimeout: 10))
        defer { client.shutdownInBackground() }

        var printed: [String] = []
        do {
            _ = try await client.call("fetch", params: .object([("entity", .string("Planet"))]))
            Issue.record("fetching an entity the model does not have was expected to fail")
        } catch DocumentClientError.server(let error) {
            switch error.code {
            case .invalidParams: printed.append(error.message)
            case .unauthorized: printed.append("wrong token")
            default: throw error
            }
        }
        #expect(printed.count == 1)
        #expect(printed.first?.contains("Planet") == true, "\(printed)")

        // A wrong token: the server's `.unauthorized`, from the client and when adding a store.
        let intruder = DocumentClient(configuration: ClientConfiguration(
            host: server.host, port: Int(server.port), token: "wrong", requestTimeout: 10))
        defer { intruder.shutdownInBackground() }
        let refused = await #expect(throws: DocumentClientError.self) { try await intruder.hello() }
        guard case .server(let refusal)? = refused else {
            Issue.record("expected the server's refusal, got \(String(describing: refused))")
            return
        }
        #expect(refusal.code == .unauthorized)
        #expect(refusal.code == RemoteError.Code.unauthorized)
        let model = try await client.model()
        try Self.addingAStoreWithAWrongTokenIsUnauthorized(model, server: server)
    }

    private static func addingAStoreWithAWrongTokenIsUnauthorized(_ model: ObjectModel, server: ServerProcess) throws {
        let error = #expect(throws: DocumentClientError.self) {
            try remoteCoordinator(model, server: server, options: ["token": "wrong"])
        }
        guard case .server(let refusal)? = error else {
            Issue.record("expected the server's refusal, got \(String(describing: error))")
            return
        }
        #expect(refusal.code == .unauthorized)
    }

    @Test func noServerIsCannotConnectAndABadOptionIsInvalidOptionAsTheArticleSays() async throws {
        let port = try unusedPort()
        let client = DocumentClient(configuration: ClientConfiguration(host: "127.0.0.1", port: port, connectTimeout: 5))
        defer { client.shutdownInBackground() }
        let error = await #expect(throws: DocumentClientError.self) { try await client.hello() }
        guard case .cannotConnect(let address, _)? = error else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(port)")

        let model = try ObjectModel(entities: [EntityDescription("Song", attributes: [AttributeDescription("title", .string)])])
        RemoteStore.register()
        let coordinator = StoreCoordinator(model: model)
        let badOption = #expect(throws: DocumentClientError.self) {
            try coordinator.addPersistentStore(type: RemoteStore.storeType, at: URL(string: "docstore://127.0.0.1:\(port)"),
                                               options: StoreOptions(values: ["prefetch": "0"]))
        }
        guard case .invalidOption(let name, let value, _)? = badOption else {
            Issue.record("expected invalidOption, got \(String(describing: badOption))")
            return
        }
        #expect(name == "prefetch" && value == "0")
        let badURL = #expect(throws: DocumentClientError.self) {
            try coordinator.addPersistentStore(type: RemoteStore.storeType, at: URL(string: "http://127.0.0.1:\(port)"))
        }
        guard case .invalidURL? = badURL else {
            Issue.record("expected invalidURL, got \(String(describing: badURL))")
            return
        }
    }

    // MARK: - Notifications

    @Test func theNotificationStreamIsEmptyAndEndsAtShutdownAsTheArticleSays() async throws {
        let server = try Self.startServer()
        let client = DocumentClient(configuration: ClientConfiguration(
            host: server.host, port: Int(server.port), token: "s3cret", requestTimeout: 10))

        // As in the article (collecting instead of printing).
        let reading = Task {
            var methods: [String] = []
            for await notification in client.notifications {
                methods.append(notification.method)
            }
            return methods
        }
        _ = try await client.hello()
        _ = try await client.ping()
        try await client.shutdown()

        #expect(await reading.value == [], "the server pushes nothing yet")
        #expect(DocumentClient.notificationBufferLimit == 1024)
    }
}
