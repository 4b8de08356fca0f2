import Foundation
import GraphCore
import DocumentProtocol
import JSONCore
import NIOCore

/// An incremental store whose objects live in a running `docserver`: the same object graph
/// as a local store, loaded on demand over the network.
///
/// ```swift
/// RemoteStore.register()
/// let coordinator = StoreCoordinator(model: model)   // the server's model
/// try coordinator.addPersistentStore(type: "DocumentServer", at: URL(string: "docstore://127.0.0.1:7878"),
///                                    options: StoreOptions(values: ["token": "…", "prefetch": "200"]))
/// ```
///
/// - Adding the store says `hello` and checks that the server's model is this model.
/// - A fetch is one `fetch`: the server filters (the predicate's format string), sorts and
///   pages. Objects come with their values, or as faults when the request returns faults.
/// - A fault that fires loads in one `get` together with up to `prefetch - 1` other faults
///   this store handed out, in the order it met them.
/// - A save is one `save`: the server gives inserted objects their IDs; its conflict error
///   becomes `GraphError.conflict`, so merge policies work as with a local store.
/// - Re-reading an object sends the version last read: unchanged objects come back
///   without their values.
/// - A lost connection fails the requests in flight and is made again by the next one.
///   A `save` whose answer was lost may or may not have been applied (the error says so).
/// - Other processes' saves: the store subscribes to the server's commits (on a connection of
///   its own), refreshes the rows it holds and posts each commit to its coordinator
///   (`StoreCoordinator.postRemoteChange(_:)`), which contexts merge before their next fetch,
///   `existingObject(with:)` or save, as they merge another context's save. Its own saves are
///   not posted. The option `remoteChanges=false` turns this off.
///
/// Options: see ``RemoteStoreOptions``.
public final class RemoteStore: IncrementalStore, @unchecked Sendable {
    // Sendable as every store: its coordinator makes one call at a time into it, and the
    // caches below are only touched from those calls. A call blocks for its round trip
    // (at most the request timeout) without holding the coordinator's lock: other stores of
    // the coordinator stay usable meanwhile.

    /// The store type name, `"DocumentServer"`.
    public static let storeType = "DocumentServer"

    /// Registers this class as the store type `"DocumentServer"`.
    public static func register() {
        StoreRegistry.register(RemoteStore.self, as: storeType)
    }

    /// The client the store talks through (its ``DocumentClient/statistics`` count the round trips).
    public let client: DocumentClient
    /// The settings read from the store's URL and options.
    public let settings: RemoteStoreOptions
    private var rows: RowCache
    private var faults: FaultQueue
    /// The subscription to other processes' commits; nil when the option turns it off.
    private var feed: RemoteChangeFeed?
    /// Rows a remote change just refreshed: contexts turn their objects into faults as they
    /// merge the change, and those faults should read these rows, not ask the server again.
    private var freshFromFeed: Set<ObjectID> = []

    /// A store for the server at `url` (`docstore://host:port`), with ``RemoteStoreOptions``
    /// read from `options`; the coordinator calls it when the store is added. Nothing is sent
    /// until the coordinator loads the store's metadata.
    ///
    /// - Throws: ``DocumentClientError/invalidURL(_:reason:)`` or
    ///   ``DocumentClientError/invalidOption(name:value:expected:)``.
    public required init(coordinator: StoreCoordinator, configurationName: String?, url: URL?, options: StoreOptions) throws {
        settings = try RemoteStoreOptions(url: url, options: options)
        client = DocumentClient(configuration: settings.client)
        rows = RowCache(capacity: settings.rowCacheCapacity,
                        prefetchLifetime: .nanoseconds(ClientConfiguration.nanoseconds(settings.prefetchLifetime)))
        faults = FaultQueue(capacity: settings.rowCacheCapacity)
        try super.init(coordinator: coordinator, configurationName: configurationName, url: url, options: options)
    }

    deinit {
        feed?.stop()
        client.shutdownInBackground()
    }

    /// True: the server gives inserted objects their permanent IDs when it applies the save.
    public override var assignsPermanentIDsWhenSaving: Bool { true }

    /// How many objects' last-read values the store keeps.
    public var rowCount: Int { rows.count }

    // MARK: - Opening

    /// Says `hello` and checks that the server's model is the coordinator's.
    ///
    /// - Throws: `GraphError.modelMismatch` naming the entities that differ, or a
    ///   ``DocumentClientError`` (no server, a wrong token, …).
    public override func loadMetadata() throws {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        let hello = try wait(client.helloFuture(), "hello")
        if hello.modelHash != model.versionHash {
            // Name the entities that differ, as a local store does.
            let served = try wait(client.modelFuture(), "model")
            let differing = model.entitiesDiffering(from: served.entityVersionHashes)
            throw GraphError.modelMismatch(entities: differing.isEmpty ? model.entities.map(\.name) : differing)
        }
        metadata.storeIdentifier = hello.storeUUID
        metadata.entityVersionHashes = model.entityVersionHashes
        metadata.modelVersionHash = model.versionHash
        metadata.userInfo["server"] = "\(hello.server) \(hello.version) at \(settings.client.address)"
        // Only a server that numbers its commits (its `hello` says `seq`) has live changes.
        if settings.mergesRemoteChanges, feed == nil, let seq = hello.seq {
            // From the commit `hello` reported on: nothing after opening is missed.
            let feed = RemoteChangeFeed(client: client, model: model, coordinator: coordinator, since: seq)
            self.feed = feed
            feed.start()
        }
    }

    /// Closes the connection when the store is removed from its coordinator.
    public override func willRemove() {
        feed?.stop()
        client.shutdownInBackground()
    }

    // MARK: - Fetch and save

    /// Runs a fetch as one `fetch` (filtered, sorted, paged or counted by the server) or a save
    /// as one `save`; the server's conflict becomes `GraphError.conflict`.
    public override func execute(_ request: StoreRequest) throws -> StoreResponse {
        applyRemoteChanges()
        switch request {
        case .fetch(let fetch): return .fetched(try fetchFromServer(fetch))
        case .save(let save): return .saved(try saveOnServer(save))
        }
    }

    private func fetchFromServer(_ request: FetchRequest) throws -> StoreFetchResult {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        // The server orders strings plainly or ignoring case; for a locale's order the context sorts.
        let serverSorts = request.sortDescriptors.allSatisfy { $0.comparison == .plain || $0.comparison == .caseInsensitive }
        let resultType: String
        switch request.resultType {
        case .count: resultType = serverSorts || (request.fetchLimit == 0 && request.fetchOffset == 0) ? "count" : "ids"
        case .objectIDs: resultType = "ids"
        case .objects: resultType = request.returnsObjectsAsFaults ? "ids" : "objects"
        }
        let answer = try wait(client.fetchFuture(request, model: model, resultType: resultType, sortedAndPaged: serverSorts), "fetch")
        if let count = answer.count { return StoreFetchResult(count: count, isSortedAndPaged: true) }
        for id in answer.ids where !rows.isPrefetched(id, at: .now) { faults.append(id) }
        for snapshot in answer.objects { remember(snapshot) }
        return StoreFetchResult(snapshots: answer.objects, faults: answer.ids, isSortedAndPaged: serverSorts)
    }

    private func saveOnServer(_ request: SaveChangesRequest) throws -> SaveResult {
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        guard request.lockedObjects.isEmpty else {
            throw GraphError.store("docserver cannot check the version of an object a save does not change (\(request.lockedObjects.count) locked objects)")
        }
        var baselines: [ObjectID: ObjectSnapshot] = [:]
        for snapshot in request.updatedObjects { baselines[snapshot.objectID] = rows[snapshot.objectID] }
        let writer = SaveRequestWriter(request: request, baselines: baselines)
        feed?.saveWillStart()
        var savedSeq: Int64?
        defer { feed?.saveDidEnd(seq: savedSeq) }
        let answer = try wait(client.saveFuture(writer, model: model), "save")
        savedSeq = answer.seq

        // What was saved is what the server now holds: keep it as rows at the new versions, in
        // the server's form (through the wire: dates to the millisecond, as the server keeps them).
        let permanent = answer.permanentIDs
        var reader = WireObjectReader(model: model, address: settings.client.address)
        func saved(_ snapshot: ObjectSnapshot, defaultVersion: Int64) {
            let id = permanent[snapshot.objectID] ?? snapshot.objectID
            var values = snapshot.values
            for index in id.entity.relationshipIndices {
                switch values[index] {
                case .object(let target): values[index] = .object(permanent[target] ?? target)
                case .objects(let targets) where !permanent.isEmpty: values[index] = .objects(targets.map { permanent[$0] ?? $0 })
                default: break
                }
            }
            let row = ObjectSnapshot(objectID: id, version: answer.versions[id] ?? defaultVersion, values: values)
            if let normalized = try? reader.throughWire(row) {
                rows.store(normalized)
            } else {
                rows.remove(id)  // read again in full next time
            }
        }
        for snapshot in request.insertedObjects { saved(snapshot, defaultVersion: 1) }
        for snapshot in request.updatedObjects {
            // The server refuses to save an object at Int64.max, so this never saturates for real.
            saved(snapshot, defaultVersion: snapshot.version < Int64.max ? snapshot.version + 1 : Int64.max)
        }
        for id in answer.deleted + answer.updated {
            rows.remove(id)
            faults.remove(id)
        }
        return SaveResult(permanentIDs: permanent, versions: answer.versions)
    }

    /// Always throws: the server gives objects their permanent IDs when it applies the save
    /// that inserts them.
    public override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        throw GraphError.store("docserver gives objects their permanent IDs when it applies the save that inserts them")
    }

    // MARK: - Faults

    /// The values of a fault that fires: from a row loaded ahead when there is one, otherwise
    /// in one `get` together with up to `prefetch - 1` other queued faults.
    ///
    /// - Throws: `GraphError.objectNotFound` when the server has no such object.
    public override func newValues(forObjectWith id: ObjectID) throws -> IncrementalStoreNode {
        applyRemoteChanges()
        let now = ContinuousClock.now
        if let row = rows.takePrefetched(id, at: now) { return node(row) }
        guard let model else { throw GraphError.store("the store's coordinator is gone") }
        // Take the batch while `id` still has its place in the queue: the faults after it come first.
        let batch = [id] + faults.take(after: id, limit: settings.prefetch - 1) { !rows.isPrefetched($0, at: now) }
        faults.remove(id)
        let known = batch.map { rows[$0]?.version }
        let objects = try wait(client.getFuture(batch, knownVersions: known, model: model), "get")
        var loaded: [ObjectID] = []
        for (requested, object) in zip(batch, objects) {
            switch object {
            case .snapshot(let snapshot)?:
                remember(snapshot)
            case .unchanged(_, let version)?:
                if rows[requested]?.version != version { throw GraphError.store("docserver answered \(requested.uriRepresentation) as unchanged at a version this store does not hold") }
            case nil:
                rows.remove(requested)
                continue
            }
            if requested != id { loaded.append(requested) }
        }
        rows.markPrefetched(loaded, at: .now)
        guard let row = rows[id], objects.first.flatMap({ $0 }) != nil else { throw GraphError.objectNotFound(id) }
        return node(row)
    }

    /// Refreshed objects queue up as faults, so that reading them again is batched too (each
    /// `get` sends the versions held: the unchanged ones come back without values).
    public override func objectsDidBecomeFaults(_ ids: [ObjectID]) {
        applyRemoteChanges()
        for id in ids {
            // A refresh asks for the server's values, not ones loaded ahead (unless a remote
            // change just brought them).
            if freshFromFeed.remove(id) == nil { rows.forgetPrefetch(id) }
            faults.append(id)
        }
    }

    /// The value of a relationship, from the row last read or by loading the object's values.
    public override func newValue(forRelationship name: String, forObjectWith id: ObjectID) throws -> Value {
        guard let index = id.entity.index(ofProperty: name) else { throw GraphError.unknownKey(entity: id.entityName, key: name) }
        applyRemoteChanges()
        if let row = rows[id] { return row.values[index] }
        return try newValues(forObjectWith: id).values[name] ?? .null
    }

    // MARK: - Other processes' commits

    /// Brings the rows up to date with the commits other processes made since the last call:
    /// a row of an object another process changed takes the committed values (loaded ahead,
    /// so the fault a context fires on merging needs no round trip), or is dropped when the
    /// commit came without them; rows of deleted objects are dropped.
    private func applyRemoteChanges() {
        guard let feed else { return }
        guard let changes = feed.take() else {
            rows.removeAll()
            return
        }
        guard !changes.isEmpty else { return }
        var fresh: [ObjectID] = []
        for change in changes {
            for object in change.updated + change.inserted {
                guard let held = rows[object.objectID] else { continue }  // nobody read it: nothing is stale
                guard held.version < object.version else { continue }
                if let snapshot = object.snapshot {
                    rows.store(snapshot)
                    fresh.append(object.objectID)
                } else {
                    rows.remove(object.objectID)
                }
            }
            for id in change.deleted + change.removed {
                rows.remove(id)
                faults.remove(id)
            }
        }
        rows.markPrefetched(fresh, at: .now)
        if freshFromFeed.count > settings.rowCacheCapacity { freshFromFeed.removeAll() }
        freshFromFeed.formUnion(fresh)
    }

    // MARK: - Helpers

    /// Keeps an object's values as its row, and queues the objects it names as likely faults.
    private func remember(_ snapshot: ObjectSnapshot) {
        rows.store(snapshot)
        for index in snapshot.objectID.entity.relationshipIndices {
            switch snapshot.values[index] {
            case .object(let target): if rows[target] == nil { faults.append(target) }
            case .objects(let targets): for target in targets where rows[target] == nil { faults.append(target) }
            default: break
            }
        }
    }

    private func node(_ row: ObjectSnapshot) -> IncrementalStoreNode {
        let properties = row.objectID.entity.properties
        var values: [String: Value] = [:]
        values.reserveCapacity(properties.count)
        for (index, property) in properties.enumerated() { values[property.name] = row.values[index] }
        return IncrementalStoreNode(objectID: row.objectID, version: row.version, values: values)
    }

    /// Waits for an answer (store calls are synchronous), turning the server's conflict and
    /// not-found errors into GraphCore's.
    private func wait<T: Sendable>(_ future: EventLoopFuture<T>, _ method: String) throws -> T {
        if future.eventLoop.inEventLoop { throw DocumentClientError.calledOnEventLoop(method: method) }
        try client.ensureOpen()
        do {
            return try future.wait()
        } catch DocumentClientError.server(let error) {
            throw graphError(for: error)
        }
    }

    private func graphError(for error: RemoteError) -> Error {
        guard let model else { return DocumentClientError.server(error) }
        var reader = WireObjectReader(model: model, address: settings.client.address)
        switch error.code {
        case RemoteError.Code.conflict:
            guard case .array(let items)? = error.data?["conflicts"] else { return DocumentClientError.server(error) }
            var conflicts: [Conflict] = []
            for item in items {
                guard let idJSON = item["id"], let id = try? reader.objectID(idJSON, at: "conflicts"),
                      case .number(let expectedText)? = item["expected"], let expected = Int64(expectedText)
                else { return DocumentClientError.server(error) }
                var current: Int64?
                if case .number(let text)? = item["current"] { current = Int64(text) }
                conflicts.append(Conflict(objectID: id, expectedVersion: expected, currentVersion: current))
                rows.remove(id)
            }
            return GraphError.conflict(conflicts)
        case RemoteError.Code.notFound:
            if case .array(let ids)? = error.data?["ids"], let first = ids.first, let id = try? reader.objectID(first, at: "ids") {
                return GraphError.objectNotFound(id)
            }
            return DocumentClientError.server(error)
        default:
            return DocumentClientError.server(error)
        }
    }
}
