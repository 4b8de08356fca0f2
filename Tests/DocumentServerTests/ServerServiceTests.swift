import DocumentServer
import Foundation
import GraphCore
import Logging
import ServerTestSupport
import Testing

/// The server run in the test's own process, as a `Service` is: `run()` until its task is
/// cancelled or ``DocumentServer/shutdown()`` is called.
@Suite struct ServerServiceTests {
    static let model = #"{"entities":[{"name":"Note","attributes":[{"name":"text","type":"string"}]}]}"#

    /// A server on `store` whose `run()` yields its port to the returned stream.
    private func makeServer(store: URL) throws -> (DocumentServer, AsyncStream<Int>) {
        let model = try ObjectModel(json: Data(Self.model.utf8))
        let (ports, listening) = AsyncStream<Int>.makeStream()
        let server = try DocumentServer(model: model, storeURL: store, configuration: ServerConfiguration(port: 0),
                                        logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }) { _, port in
            listening.yield(port)
            listening.finish()
        }
        return (server, ports)
    }

    @Test(arguments: [false, true])
    func cancellingItsTaskOrShutdownStopsTheServerAndReleasesTheStore(cancel: Bool) async throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store.json")
        let (server, ports) = try makeServer(store: store)
        let running = Task { try await server.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next(), "the server did not listen")
        let client = try LineClient(port: UInt16(port))
        let answer = try client.result("save", ["insert": [["id": "t", "entity": "Note", "values": ["text": "kept"]]]])
        #expect(answer["ids"]["t"].string != nil)
        if cancel { running.cancel() } else { server.shutdown() }
        try await running.value
        _ = try client.bytesUntilClosed()
        #expect(throws: HarnessError.self) { try LineClient(port: UInt16(port)) }
        // The lock is released and the save is in the file.
        let (again, _) = try makeServer(store: store)
        withExtendedLifetime(again) {}
        let file = try StoreFileContents(store)
        #expect(file.json["objects"]["Note"][0]["values"]["text"].string == "kept")
    }
}
