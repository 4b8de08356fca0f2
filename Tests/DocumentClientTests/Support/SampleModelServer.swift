import DocumentClient
import Foundation
import GraphCore
import ServerTestSupport

/// A `docserver` on the sample model (Sources/docserver/Resources/sample.model.json), the
/// Swift contexts of a test on it, and Python programs talking to it.
final class SampleModelServer {
    let directory: TemporaryDirectory
    let server: ServerProcess
    let model: ObjectModel
    private var coordinators: [StoreCoordinator] = []

    init() throws {
        RemoteStore.register()
        let modelURL = PythonScript.repository.appendingPathComponent("Sources/docserver/Resources/sample.model.json")
        model = try ObjectModel(contentsOf: modelURL)
        directory = try TemporaryDirectory()
        server = try ServerProcess(store: directory.file("store.json"), arguments: ["--model", modelURL.path, "--log-level", "warning"])
    }

    deinit {
        for coordinator in coordinators {
            for store in coordinator.persistentStores { coordinator.remove(store) }
        }
        server.crash()
    }

    /// A context on a new coordinator with a RemoteStore of its own (its own connection).
    /// It merges other processes' saves by itself only with `remoteChanges` (the interop tests
    /// check what a context sees when nothing is merged for it).
    func newContext(remoteChanges: Bool = false, clientName: String = "RemoteStore") throws -> ObjectContext {
        guard let url = URL(string: "docstore://\(server.host):\(server.port)") else { throw HarnessError("no URL for the server") }
        let coordinator = StoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: RemoteStore.storeType, at: url, options: StoreOptions(values: [
            "requestTimeout": "10", RemoteStoreOptions.remoteChanges: String(remoteChanges), RemoteStoreOptions.clientName: clientName,
        ]))
        coordinators.append(coordinator)
        return ObjectContext(coordinator: coordinator)
    }

    /// A Python program that gets the server's host and port with its input.
    func python(_ source: String, named name: String) throws -> ServerScript {
        ServerScript(script: try PythonScript(source, named: name, in: directory), host: server.host, port: Int(server.port))
    }

    struct ServerScript {
        let script: PythonScript
        let host: String
        let port: Int

        func run(_ input: [String: Any]) throws -> [String: Any] {
            try script.run(input.merging(["host": host, "port": port]) { _, new in new })
        }
    }
}
