import DocumentClient
import Foundation
import GraphCore
import Testing

/// A `RemoteStore` whose server goes away: the request fails with an error naming the server,
/// the context keeps its unsaved changes, and the next request, once a server listens again,
/// connects again.
@Suite struct RemoteStoreConnectionTests {
    @Test func aSaveAfterTheServerDiedFailsAndTheNextOneReconnectsToTheRestartedServer() throws {
        let store = try StoreFixture(.documentServer)
        let song = try store.context.insert("Song", values: ["title": "Before"])
        try store.context.save()
        let client = try store.context.remoteClient()
        let address = client.configuration.address
        let crashed = try #require(store.server)
        try song.set("title", "After")
        let added = try store.context.insert("Song", values: ["title": "Added"])

        crashed.crash()
        let error = #expect(throws: DocumentClientError.self) { try store.context.save() }

        // Whether the client saw the connection close before the save (then nothing listens)
        // or only while sending it, the error names the server.
        switch error {
        case .cannotConnect(let named, _)?:
            #expect(named == address)
        case .connectionLost(let named, let method, _)?:
            #expect(named == address)
            #expect(method == "save")
        default:
            Issue.record("expected cannotConnect or connectionLost, got \(String(describing: error))")
        }
        #expect(message(of: error).contains(address))
        #expect(store.context.hasChanges)
        #expect(song.isUpdated)
        #expect(try song.string("title") == "After")
        #expect(added.isInserted && added.objectID.isTemporary)

        try store.restartServerOnTheSamePort()
        #expect(store.server?.port == crashed.port)
        try store.context.save()

        #expect(client.statistics.connections == 2)
        #expect(!added.objectID.isTemporary)
        let reader = try store.secondContext()
        #expect(try strings("title", of: reader.all("Song", sortedBy: "title")) == ["Added", "After"])
    }

    @Test func aStoreGivesUpOnAServerThatDoesNotAnswerAfterItsRequestTimeout() throws {
        let model = try BehaviourModel.make()
        let listener = try ScriptedListener(modelHash: model.versionHash) { _ in .silence }
        let coordinator = StoreCoordinator(model: model)
        let url = try #require(URL(string: "docstore://127.0.0.1:\(listener.port)"))
        RemoteStore.register()
        try coordinator.addPersistentStore(type: RemoteStore.storeType, at: url, options: StoreOptions(values: ["requestTimeout": "0.3"]))
        defer { coordinator.persistentStores.forEach(coordinator.remove) }
        let context = ObjectContext(coordinator: coordinator)

        let start = ContinuousClock.now
        let error = #expect(throws: DocumentClientError.self) { try context.fetch(FetchRequest(entityName: "Song")) }
        let waited = ContinuousClock.now - start

        guard case .timedOut(let address, let method, let seconds)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(address == "127.0.0.1:\(listener.port)")
        #expect(method == "fetch")
        #expect(seconds == 0.3)
        #expect(waited >= .milliseconds(300) && waited < .seconds(10), "waited \(waited)")  // well under the default of 60 s
        #expect(listener.methods == ["hello", "fetch"])
    }
}
