import Foundation
import Synchronization

/// Owns one model and the stores that hold its objects, and answers contexts' fetches,
/// faults and saves. Safe to use from any thread.
///
/// Each store gets one call at a time (the coordinator serializes calls per store), but a call
/// into one store never waits for another store: a fetch or fault on a slow store (a store
/// waiting for its server) holds up only the callers that need that store, while other
/// contexts go on with the other stores. The coordinator's own lock (its store list, classes
/// and observers) is never held while a store works. A request that spans several stores (a
/// fetch of every store, a save touching objects of several) waits until all of them are free
/// and holds them together for its whole length, so it sees or makes a change across stores
/// whole. A fetch goes to every store unless its ``FetchRequest/affectedStoreIdentifiers``
/// name some: name them to keep a fetch off a slow store.
///
/// A save across several stores: each store applies its part all or nothing; every store's
/// versions are checked before any store writes, so a conflict writes nothing; a store that
/// fails for another reason after an earlier store wrote does not undo that write.
///
/// ```swift
/// let coordinator = StoreCoordinator(model: model)
/// try coordinator.addPersistentStore(type: "InMemory")
/// let context = ObjectContext(coordinator: coordinator)
/// ```
public final class StoreCoordinator: Sendable {
    /// The model of every object the coordinator's stores hold.
    public let model: ObjectModel
    /// Counts class registrations, so contexts know when their cache of classes is stale.
    let classGeneration = Atomic<Int>(0)

    private struct State {
        var stores: [PersistentStore] = []
        var classes: [String: ManagedObject.Type] = [:]
        var entityByClass: [ObjectIdentifier: String] = [:]
        var observers: [Int: @Sendable (ContextDidSave) -> Void] = [:]
        var nextObserver = 0
    }

    private let state = StoreAccess(State())
    /// Changes other processes made, kept until every context has merged them.
    let remoteChanges = RemoteChangeLog()
    /// Who hears of changes other processes made.
    let remoteChangeObservers = Locked(RemoteChangeObservers())

    /// A coordinator for `model`, with no store yet: add one with
    /// ``addPersistentStore(type:configuration:at:options:)``.
    public init(model: ObjectModel) {
        self.model = model
    }

    // MARK: - Stores

    /// Opens a store of a registered type and adds it.
    ///
    /// - Throws: ``GraphError/unknownStoreType(_:registered:)``; ``GraphError/modelMismatch(entities:)``
    ///   when the store was written for a model whose entities differ (naming them); the
    ///   store's own error when it cannot be read.
    @discardableResult
    public func addPersistentStore(
        type: String, configuration: String? = nil, at url: URL? = nil, options: StoreOptions = StoreOptions()
    ) throws -> PersistentStore {
        guard let storeClass = StoreRegistry.storeClass(named: type) else {
            throw GraphError.unknownStoreType(type, registered: StoreRegistry.registeredNames)
        }
        if let url, Self.holds(url, persistentStores) { throw Self.alreadyAdded(url.path) }
        let store = try storeClass.init(coordinator: self, configurationName: configuration, url: url, options: options)
        store.metadata.storeType = type
        try store.loadMetadata()
        if store.metadata.entityVersionHashes.isEmpty {
            store.metadata.entityVersionHashes = model.entityVersionHashes
            store.metadata.modelVersionHash = model.versionHash
        } else {
            let differing = model.entitiesDiffering(from: store.metadata.entityVersionHashes)
            if !differing.isEmpty {
                store.willRemove()
                throw GraphError.modelMismatch(entities: differing)
            }
        }
        // Checked again under the lock: another thread may have added the same URL meanwhile.
        let added = state.withLock { state -> Bool in
            if let url, Self.holds(url, state.stores) { return false }
            state.stores.append(store)
            return true
        }
        guard added else {
            store.willRemove()
            throw Self.alreadyAdded(url?.path ?? "")
        }
        return store
    }

    private static func holds(_ url: URL, _ stores: [PersistentStore]) -> Bool {
        stores.contains { $0.url?.standardizedFileURL == url.standardizedFileURL }
    }

    private static func alreadyAdded(_ path: String) -> GraphError {
        .store("the store at \(path) is already added to this coordinator")
    }

    /// Removes a store (it releases its files and locks), once a call in progress on it ends.
    public func remove(_ store: PersistentStore) {
        // Waits for a call in progress on the store to end.
        let removed = state.whenIdle(store) { state -> Bool in
            let count = state.stores.count
            state.stores.removeAll { $0 === store }
            return state.stores.count != count
        }
        if removed { store.willRemove() }
    }

    /// The stores, in the order they were added.
    public var persistentStores: [PersistentStore] { state.withLock { $0.stores } }

    /// The store with this UUID.
    public func persistentStore(withIdentifier identifier: String) -> PersistentStore? {
        state.withLock { $0.stores.first { $0.identifier == identifier } }
    }

    // MARK: - Typed classes

    /// Makes fetches and inserts of an entity produce instances of `type`.
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)``, or a ``GraphError`` naming a typed
    ///   property of the class that does not match the entity (unknown key, wrong kind or type).
    public func register(_ type: ManagedObject.Type, forEntity name: String) throws {
        let entity = try model.requireEntity(name)
        try ManagedPropertyCheck.check(type, against: entity)
        state.withLock {
            $0.classes[name] = type
            $0.entityByClass[ObjectIdentifier(type)] = name
        }
        classGeneration.add(1, ordering: .releasing)
    }

    func registeredClass(forEntity name: String) -> ManagedObject.Type? {
        state.withLock { $0.classes[name] }
    }

    func entityName(forClass type: ManagedObject.Type) -> String? {
        state.withLock { $0.entityByClass[ObjectIdentifier(type)] }
    }

    // MARK: - Requests from contexts

    /// The snapshot of one object from its store, or nil when the store has no such object.
    func snapshot(for id: ObjectID) throws -> ObjectSnapshot? {
        try state.withStores({ state in
            let store = state.stores.first { $0.identifier == id.storeIdentifier }
            return (store.map { [$0] } ?? [], store)
        }) { store in
            try store?.snapshot(for: id)
        }
    }

    /// The objects of every store (or of the request's ``FetchRequest/affectedStoreIdentifiers``)
    /// that match the request. With one store, the request goes to it as it is; results of
    /// several stores are merged here, so each store is asked for all its matches, unsorted,
    /// and the context sorts and pages them. The stores are held together, so a fetch sees a
    /// save across them whole or not at all.
    func execute(_ request: FetchRequest) throws -> StoreFetchResult {
        try state.withStores({ state in
            let stores = try Self.stores(for: request, among: state.stores)
            return (stores, stores)
        }) { stores in
            if stores.count == 1 { return try stores[0].fetch(request) }
            var each = request
            each.sortDescriptors = []
            each.fetchLimit = 0
            each.fetchOffset = 0
            if each.resultType == .count { each.resultType = .objectIDs }
            var combined = StoreFetchResult()
            for store in stores {
                let result = try store.fetch(each)
                combined.snapshots += result.snapshots
                combined.faults += result.faults
            }
            return combined
        }
    }

    /// The stores a fetch goes to, in the order they were added.
    private static func stores(for request: FetchRequest, among stores: [PersistentStore]) throws -> [PersistentStore] {
        guard let wanted = request.affectedStoreIdentifiers else { return stores }
        for identifier in wanted where !stores.contains(where: { $0.identifier == identifier }) {
            throw GraphError.store("the fetch of \(request.entityName) names the store \(identifier), which this coordinator does not have")
        }
        return stores.filter { wanted.contains($0.identifier) }
    }

    /// Tells each store which of its objects a context turned back into faults.
    func objectsDidBecomeFaults(_ ids: [ObjectID]) {
        guard !ids.isEmpty else { return }
        for store in persistentStores {
            let own = ids.filter { $0.storeIdentifier == store.identifier }
            guard !own.isEmpty else { continue }
            // One store at a time: a busy store does not hold up telling the others.
            state.withStores({ state in
                let current = state.stores.contains { $0 === store } ? [store] : []
                return (current, current.first)
            }) { store in
                store?.objectsDidBecomeFaults(own)
            }
        }
    }

    /// Permanent IDs for objects about to be inserted, from the store each will be saved to;
    /// nil when that store gives them only as it saves (``PersistentStore/assignsPermanentIDsWhenSaving``).
    func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID]? {
        try state.withStores({ state in
            guard let store = state.stores.first else {
                throw GraphError.noStore(entity: snapshots.first?.objectID.entityName ?? "")
            }
            return ([store], store)
        }) { store in
            if store.assignsPermanentIDsWhenSaving { return nil }
            return try store.obtainPermanentIDs(for: snapshots)
        }
    }

    /// Applies a save to the stores the objects belong to (inserted objects with temporary
    /// IDs go to the first store).
    ///
    /// What is guaranteed: each store applies its part all or nothing. With several stores,
    /// all of them are held for the whole save (no other call reaches them meanwhile), every
    /// store's versions are checked before any store writes, so a conflict writes nothing; a
    /// store that fails for another reason after an earlier one wrote does not undo that write.
    ///
    /// A context's ``ObjectContext/save(metadata:)`` calls it after validating its objects; a
    /// caller that makes the request itself (snapshots of its own, without a context) validates
    /// them first (``ObjectSnapshot/validationFailures()``): the stores check versions and
    /// uniqueness constraints, not values.
    public func execute(_ request: SaveChangesRequest) throws -> SaveResult {
        try state.withStores({ state in
            let parts = try Self.split(request, among: state.stores)
            return (parts.map(\.store), parts)
        }) { parts in
            if parts.count == 1 { return try parts[0].store.save(parts[0].part) }
            // Each store saves all or nothing, but one store cannot undo its save when the next
            // one fails: check every store's versions first, so a conflict writes nothing.
            var conflicts: [Conflict] = []
            for (store, part) in parts {
                for snapshot in part.updatedObjects + part.deletedObjects + part.lockedObjects {
                    let current = try store.snapshot(for: snapshot.objectID)?.version
                    if current != snapshot.version {
                        conflicts.append(Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version,
                                                  currentVersion: current))
                    }
                }
            }
            if !conflicts.isEmpty { throw GraphError.conflict(conflicts) }
            var result = SaveResult()
            for (store, part) in parts { result.merge(try store.save(part)) }
            return result
        }
    }

    /// A save split by the store each object belongs to, in the order the stores were added;
    /// objects of no store (temporary IDs) go to the first.
    private static func split(
        _ request: SaveChangesRequest, among stores: [PersistentStore]
    ) throws -> [(store: PersistentStore, part: SaveChangesRequest)] {
        guard let first = stores.first else {
            throw GraphError.noStore(entity: request.insertedObjects.first?.objectID.entityName ?? "")
        }
        if stores.count == 1 { return [(first, request)] }
        var parts: [ObjectIdentifier: SaveChangesRequest] = [:]
        func route(_ snapshot: ObjectSnapshot) -> ObjectIdentifier {
            ObjectIdentifier(stores.first { $0.identifier == snapshot.objectID.storeIdentifier } ?? first)
        }
        for s in request.insertedObjects { parts[route(s), default: .init()].insertedObjects.append(s) }
        for s in request.updatedObjects { parts[route(s), default: .init()].updatedObjects.append(s) }
        for s in request.deletedObjects { parts[route(s), default: .init()].deletedObjects.append(s) }
        for s in request.lockedObjects { parts[route(s), default: .init()].lockedObjects.append(s) }
        for key in parts.keys { parts[key]?.metadata = request.metadata }  // each store writes the save's metadata
        return stores.compactMap { store in parts[ObjectIdentifier(store)].map { (store, $0) } }
    }

    // MARK: - Save notifications

    /// Calls `handler` after every save of any context of this coordinator, on the thread
    /// that saved. Merge into another context from there with its `perform`.
    @discardableResult
    public func addSaveObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> Int {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = handler
            return state.nextObserver
        }
    }

    /// Stops calling the observer that ``addSaveObserver(_:)`` returned `token` for.
    public func removeSaveObserver(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    func post(_ notification: ContextDidSave, from context: ObjectContext) {
        guard !notification.isEmpty else { return }
        let observers = state.withLock { Array($0.observers.values) }
        for observer in observers { observer(notification) }
    }
}
