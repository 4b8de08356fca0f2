import DocumentClient
import Foundation
import GraphCore
import JSONAtomicStore
import PostgresStore
import PostgresTestSupport
import ServerTestSupport

/// One store of a ``StoreKind`` for one test: a coordinator with a context on it, second
/// contexts that share the store, and a way to reopen the store to see what persisted.
///
/// ```swift
/// let store = try StoreFixture(kind)
/// let song = try store.context.insert("Song", values: ["title": "So What"])
/// try store.context.save()
/// let other = try store.secondContext()          // another user of the same objects
/// let reopened = try store.reopen()              // the same data in a new coordinator
/// ```
///
/// Keep the fixture alive while its contexts are used: it owns the temporary directory, the
/// server process and the coordinators. When it goes, it removes every store (closing files
/// and connections) and kills the server.
final class StoreFixture {
    let kind: StoreKind
    /// The model of every coordinator of the fixture, and of its server.
    let model: ObjectModel
    /// The test's directory: the JSON store file, or the server's model file, store file and log.
    let directory: TemporaryDirectory
    /// The coordinator of ``context``; a new one after ``reopen()``.
    private(set) var coordinator: StoreCoordinator
    /// The context the test works in; a new one after ``reopen()``.
    private(set) var context: ObjectContext
    /// The `docserver serve` of a `.documentServer` fixture; another process after ``reopen()``.
    private(set) var server: ServerProcess?
    /// The database of a `.postgreSQL` fixture (a new one of the tests' cluster).
    private let database: URL?
    /// Every coordinator opened, so that the stores can all be removed.
    private var coordinators: [StoreCoordinator] = []

    init(_ kind: StoreKind) throws {
        JSONAtomicStore.register()
        RemoteStore.register()
        self.kind = kind
        model = try BehaviourModel.make()
        directory = try TemporaryDirectory()
        database = kind == .postgreSQL || kind == .cachedDatabaseServer ? try PostgresCluster.newDatabase() : nil
        if kind.hasServer {
            try model.jsonRepresentation().write(to: directory.file("model.json"))
            server = try Self.startServer(in: directory, database: database)
        }
        coordinator = try Self.openCoordinator(kind, model: model, directory: directory, server: server, database: database)
        context = ObjectContext(coordinator: coordinator)
        coordinators = [coordinator]
    }

    deinit {
        closeStores()
        server?.crash()
    }

    /// A new context on ``coordinator`` with nothing registered: what it reads comes from the store.
    func freshContext() -> ObjectContext {
        ObjectContext(coordinator: coordinator)
    }

    /// A context for another user of the same objects.
    ///
    /// - InMemory and JSON: a new context on the same coordinator (a JSON file is locked by one
    ///   open store at a time, so a second coordinator could not open it).
    /// - DocumentServer: a context on a second coordinator with a `RemoteStore` and connection
    ///   of its own to the same server. This is the network case: the two contexts share
    ///   nothing in this process, only the server.
    ///
    /// `options` are added to a `RemoteStore`'s (`["prefetch": "1"]`); other stores ignore them.
    func secondContext(options: [String: String] = [:]) throws -> ObjectContext {
        guard kind.isRemote else { return ObjectContext(coordinator: coordinator) }
        let second = try Self.openCoordinator(kind, model: model, directory: directory, server: server, database: database, options: options)
        coordinators.append(second)
        return ObjectContext(coordinator: second)
    }

    /// Closes the store and opens its data again in a new coordinator; returns a context on it,
    /// which is ``context`` from then on. Contexts made before can no longer read or save.
    ///
    /// - InMemory: the objects went with the store: the new store is empty.
    /// - JSON: a new store reads the file.
    /// - DocumentServer: the server is stopped (SIGTERM: it finishes its work and exits) and a
    ///   new one is started on the same store file, so what the client saved must be on the
    ///   server's disk, not merely in the client or the old server's memory.
    @discardableResult
    func reopen() throws -> ObjectContext {
        closeStores()
        if let running = server {
            let status = try running.stop()
            guard status == 0 else { throw HarnessError("docserver exited with status \(status) when stopped; log: \(running.log)") }
            server = try Self.startServer(in: directory, database: database)
        }
        coordinator = try Self.openCoordinator(kind, model: model, directory: directory, server: server, database: database)
        coordinators = [coordinator]
        context = ObjectContext(coordinator: coordinator)
        return context
    }

    /// Starts a new `docserver` on the store file and the port of the last one, which must have
    /// exited (``ServerProcess/crash()``): the stores of this fixture, connected to that port,
    /// find it there on their next request.
    func restartServerOnTheSamePort() throws {
        guard let previous = server else { throw HarnessError("a \(kind) fixture has no server to restart") }
        guard !previous.isRunning else { throw HarnessError("the server still runs on port \(previous.port)") }
        // `serve --port 0 … --port N`: the last --port wins.
        server = try Self.startServer(in: directory, database: database, extraArguments: ["--port", String(previous.port)])
    }

    /// The identifier of the store of ``coordinator``: the store UUID in its permanent object IDs.
    var storeIdentifier: String? { coordinator.persistentStores.first?.identifier }

    /// The store file: the JSON store's, or the server's; nil in memory and in a database.
    var storeFileURL: URL? {
        switch kind {
        case .inMemory, .postgreSQL, .cachedDatabaseServer: return nil
        case .json: return directory.file("store.json")
        case .documentServer: return directory.file("server-store.json")
        }
    }

    /// The `metadata.storeUUID` of the store file (docs/FILE_FORMAT.md), read with Foundation's
    /// JSONSerialization; nil in memory.
    func storeUUIDInFile() throws -> String? {
        guard let url = storeFileURL else { return nil }
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        guard let metadata = (file as? [String: Any])?["metadata"] as? [String: Any],
              let uuid = metadata["storeUUID"] as? String
        else { throw HarnessError("\(url.path) has no metadata.storeUUID") }
        return uuid
    }

    // MARK: - Opening and closing

    private func closeStores() {
        for coordinator in coordinators {
            for store in coordinator.persistentStores { coordinator.remove(store) }
        }
        coordinators = []
    }

    /// A server on the store file in `directory`, or with a 1-byte cache on `database`.
    private static func startServer(in directory: TemporaryDirectory, database: URL?, extraArguments: [String] = []) throws -> ServerProcess {
        let model = ["--model", directory.file("model.json").path, "--log-level", "warning"]
        guard let database else { return try ServerProcess(store: directory.file("server-store.json"), arguments: model + extraArguments) }
        return try ServerProcess(store: nil, arguments: ["--store", database.absoluteString, "--cache-bytes", "1"] + model + extraArguments,
                                 workingDirectory: directory.url, keeping: directory, timeout: 60)
    }

    /// A new coordinator with a store of `kind` added.
    private static func openCoordinator(
        _ kind: StoreKind, model: ObjectModel, directory: TemporaryDirectory, server: ServerProcess?, database: URL?,
        options: [String: String] = [:]
    ) throws -> StoreCoordinator {
        let coordinator = StoreCoordinator(model: model)
        switch kind {
        case .inMemory:
            try coordinator.addPersistentStore(type: "InMemory")
        case .json:
            try coordinator.addPersistentStore(type: JSONAtomicStore.storeType, at: directory.file("store.json"))
        case .postgreSQL:
            PostgresStore.register()
            try coordinator.addPersistentStore(type: PostgresStore.storeType, at: database)
        case .documentServer, .cachedDatabaseServer:
            guard let server, let url = URL(string: "docstore://\(server.host):\(server.port)") else {
                throw HarnessError("no server to connect to")
            }
            // A request that takes longer fails the test instead of hanging it. Contexts merge
            // other processes' saves only where a test turns it on (`["remoteChanges": "true"]`):
            // the behaviour tests check what a context sees when nothing is merged for it.
            let defaults = ["requestTimeout": "10", RemoteStoreOptions.remoteChanges: "false"]
            try coordinator.addPersistentStore(type: RemoteStore.storeType, at: url,
                                               options: StoreOptions(values: defaults.merging(options) { $1 }))
        }
        return coordinator
    }
}
