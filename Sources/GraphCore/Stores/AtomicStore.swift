import Foundation

/// A store that holds all its objects in memory, reads them all in ``load()`` and writes
/// them all in ``save()``, as Core Data's atomic stores do.
///
/// The store keeps each object as an ``ObjectSnapshot``, the one form of a stored object in
/// GraphCore (what a context reads, what a server's read state and every store hold): Core
/// Data's "cache node" is a snapshot here, and the methods keep Core Data's names
/// (``cacheNode(for:)``, ``cacheNodes()``, ``addCacheNodes(_:)``). A save replaces an object's
/// snapshot rather than changing it, so a snapshot handed out stays as it was.
///
/// A subclass implements `load()` (read the file, make snapshots with IDs from
/// ``objectID(for:referenceObject:)``, hand them to ``addCacheNodes(_:)``, set
/// ``PersistentStore/metadata`` and ``nextReference``) and `save()` (write ``cacheNodes()`` and
/// the metadata). It may override how references are made (``newReferenceObject(for:)``) and
/// watch objects leave (``willRemoveCacheNodes(_:)``).
///
/// Fetches, version checks (optimistic locking), permanent IDs and rolling the objects back
/// when `save()` fails are done here.
open class AtomicStore: PersistentStore, @unchecked Sendable {
    /// Snapshots by concrete entity name, then by ID.
    private var nodesByEntity: [String: ObjectIDTable<ObjectSnapshot>] = [:]
    /// The fetch indexes of the model's entities, over the snapshots (see `Index/`): the
    /// persistent indexes a server's read state keeps too.
    var storeIndexes = StoreIndexes()
    /// How long the last ``save(changes:)`` took: a save runs its index upkeep beside the
    /// write only when writes take long enough (see ``IndexUpkeepWorker/overlaps(operations:lastWrite:)``).
    var lastWriteNanoseconds: UInt64 = 0
    /// Whether the last ``save(changes:)`` that had index upkeep ran it itself while it waited
    /// for its disk (``AtomicStoreChanges/whileWriting``): the next save offers none to the worker.
    var writeRunsUpkeep = false
    /// The integer reference the next inserted object gets. References go from 1 up to
    /// `Int64.max - 1`; at `Int64.max` none is left and an insert fails with
    /// ``GraphError/referencesExhausted(store:entity:nextReference:)``.
    public var nextReference: Int64 = 1

    /// Reads the whole store. The default reads nothing (a new, empty store).
    open func load() throws {}

    /// Writes the whole store. The default writes nothing.
    open func save() throws {}

    /// Writes what one save changed; called by ``save(_:)`` after the nodes were changed.
    /// The default calls ``save()`` (write everything); a store that can write only the
    /// changes (a journal) overrides it. When it throws, the nodes are rolled back.
    ///
    /// The store's fetch indexes take in the save meanwhile: in ``AtomicStoreChanges/whileWriting``,
    /// which the store may call while it waits for its disk, or on another thread. It may read
    /// every node but must not change one, nor fetch from the store.
    open func save(changes: AtomicStoreChanges) throws {
        try save()
    }

    /// Writes what one save changed and returns the numbers of the commits it made
    /// (``SaveResult/sequences``); called by ``save(_:)`` after the nodes were changed. The
    /// default calls ``save(changes:)`` and returns none; a store that numbers its commits
    /// durably (a journal) overrides it. When it throws, the nodes are rolled back.
    open func commit(changes: AtomicStoreChanges) throws -> [Int64] {
        try save(changes: changes)
        return []
    }

    /// Calls ``load()``, then builds the indexes the model declares (`fetchIndexes`).
    ///
    /// - Throws: ``GraphError/store(_:)`` for a value of ``fetchIndexesOption`` other than
    ///   `all` and ``uniquenessIndexesOnly``; the errors of ``load()``.
    open override func loadMetadata() throws {
        if let value = options.values[Self.fetchIndexesOption], value != "all", value != Self.uniquenessIndexesOnly {
            throw GraphError.store("store option \(Self.fetchIndexesOption) is \"\(value)\"; expected \"all\" (the default) "
                                   + "or \"\(Self.uniquenessIndexesOnly)\"")
        }
        try load()
        refreshIndexes()
    }

    /// The nodes by concrete entity name, for the fetch.
    var nodeTables: [String: ObjectIDTable<ObjectSnapshot>] { nodesByEntity }

    /// The store option (``StoreOptions/values``) that, set to ``uniquenessIndexesOnly``, keeps
    /// only the fetch indexes the store's uniqueness checks look objects up through: for a
    /// caller that answers its fetches from indexes of its own (the server's published states),
    /// the others would cost memory, load time and save time for nothing. The store's own
    /// fetches then scan where such an index would have served.
    public static let fetchIndexesOption = "fetchIndexes"
    /// The value of ``fetchIndexesOption`` that keeps only the indexes of uniqueness checks.
    public static let uniquenessIndexesOnly = "uniqueness"

    /// Whether the store keeps any fetch index: the model declares one that
    /// ``fetchIndexesOption`` does not leave out.
    public var keepsFetchIndexes: Bool {
        let onlyForUniqueness = options.values[Self.fetchIndexesOption] == Self.uniquenessIndexesOnly
        return model?.entities.contains { entity in
            IndexDefinition.all(of: entity).contains { !onlyForUniqueness || $0.servesUniqueness(of: entity) }
        } == true
    }

    /// Rebuilds the indexes when objects were added or removed outside a save.
    func refreshIndexes() {
        guard storeIndexes.isStale else { return }
        storeIndexes.rebuild(model: model, tables: nodesByEntity,
                             onlyForUniqueness: options.values[Self.fetchIndexesOption] == Self.uniquenessIndexesOnly)
    }

    /// The snapshot of an object of a concrete entity by its reference: how the indexes'
    /// entries (which name objects, not hold them) find their objects.
    func lookup(ofEntity name: String) -> (ReferenceObject) -> ObjectSnapshot? {
        guard let table = nodesByEntity[name], let entity = model?.entity(named: name) else { return { _ in nil } }
        let store = storeKey
        return { table.element(entity: entity, store: store, reference: $0) }
    }

    // MARK: - Hooks for subclasses

    /// The reference for a newly inserted object; by default the next integer.
    ///
    /// The store checks that enough references are left before it asks (see
    /// ``nextReference``); past the last one this gives `Int64.max` again rather than trap.
    open func newReferenceObject(for snapshot: ObjectSnapshot) -> ReferenceObject {
        let reference = nextReference
        if nextReference < Int64.max { nextReference += 1 }
        return .int(reference)
    }

    /// Throws when fewer references are left than `snapshots` need: the last one given must
    /// stay below `Int64.max`.
    private func checkReferencesLeft(for snapshots: [ObjectSnapshot]) throws {
        guard let first = snapshots.first else { return }
        let needed = Int64(exactly: snapshots.count) ?? Int64.max
        let overflow = nextReference.addingReportingOverflow(needed).overflow
        if nextReference < 1 || overflow {
            throw GraphError.referencesExhausted(store: url?.path ?? identifier, entity: first.objectID.entityName,
                                                 nextReference: nextReference)
        }
    }

    /// Throws when an updated object is at the largest version already.
    private func checkVersionsLeft(for snapshots: [ObjectSnapshot]) throws {
        for snapshot in snapshots {
            if let node = cacheNode(for: snapshot.objectID), node.version == Int64.max {
                throw GraphError.versionExhausted(snapshot.objectID, version: node.version)
            }
        }
    }

    /// Called before the objects of a save's deleted objects are removed, with their snapshots.
    open func willRemoveCacheNodes(_ nodes: [ObjectSnapshot]) {}

    // MARK: - Objects

    /// The snapshot of an object, if the store has it.
    public func cacheNode(for id: ObjectID) -> ObjectSnapshot? {
        nodesByEntity[id.entityName]?[id]
    }

    /// Every object's snapshot, grouped by entity (entities by name, objects in no particular order).
    public func cacheNodes() -> [ObjectSnapshot] {
        nodesByEntity.keys.sorted().flatMap { nodesByEntity[$0]?.values ?? [] }
    }

    /// The snapshots of the objects of one concrete entity.
    public func cacheNodes(ofEntity name: String) -> [ObjectSnapshot] {
        nodesByEntity[name]?.values ?? []
    }

    /// The number of objects.
    public var cacheNodeCount: Int { nodesByEntity.values.reduce(0) { $0 + $1.count } }

    /// Adds objects (while loading); a snapshot with the ID of an existing object replaces it.
    public func addCacheNodes(_ nodes: consuming [ObjectSnapshot]) {
        storeIndexes.isStale = true
        var pending = nodes
        // Moved into the tables, not copied: a loader hands over its array, and a million
        // copies of snapshots would each retain their fields, then release them with the array.
        // Taken from the end (popLast moves an element out) of the array reversed, so in order.
        pending.reverse()
        while let last = pending.indices.last {
            let entity = pending[last].objectID.entity
            var start = last
            while start > 0, pending[start - 1].objectID.entity === entity { start -= 1 }
            var entityNodes = nodesByEntity.removeValue(forKey: entity.name) ?? ObjectIDTable()
            entityNodes.reserveCapacity(last + 1 - start, like: pending[last].objectID)
            while pending.count > start, let node = pending.popLast() { entityNodes[node.objectID] = node }
            nodesByEntity[entity.name] = entityNodes
        }
    }

    private func insertNodes(_ nodes: [ObjectSnapshot]) {
        var start = nodes.startIndex
        while start < nodes.endIndex {
            // A run of one entity goes into its dictionary, taken out so it is mutated in place.
            let entity = nodes[start].objectID.entity
            var end = start
            while end < nodes.endIndex, nodes[end].objectID.entity === entity { end += 1 }
            var entityNodes = nodesByEntity.removeValue(forKey: entity.name) ?? ObjectIDTable()
            entityNodes.reserveCapacity(end - start, like: nodes[start].objectID)
            for node in nodes[start..<end] { entityNodes[node.objectID] = node }
            nodesByEntity[entity.name] = entityNodes
            start = end
        }
    }

    /// Reserves room for `count` objects of an entity (a loader that knows the count saves rehashing).
    public func reserveCacheNodes(_ count: Int, ofEntity name: String) {
        guard let entity = model?.entity(named: name) else { return }
        let sample = ObjectID(entity: entity, store: storeKey, reference: .int(0))
        nodesByEntity[name, default: ObjectIDTable()].reserveCapacity(count, like: sample)
    }

    /// Removes every object.
    public func removeAllCacheNodes() {
        storeIndexes.isStale = true
        nodesByEntity.removeAll()
    }

    /// The permanent ID of this store for an entity and a reference.
    public func objectID(for entity: EntityDescription, referenceObject: ReferenceObject) -> ObjectID {
        ObjectID(entity: entity, store: storeKey, reference: referenceObject)
    }

    /// Makes this store's IDs of `entity` with integer references, as ``objectID(for:referenceObject:)``
    /// does, for a loader that makes many (with the store's identifier as it is now).
    public func objectIDMaker(for entity: EntityDescription) -> ObjectID.Maker {
        ObjectID.Maker(home: .of(entity: entity, store: storeKey))
    }

    /// The interned key of ``identifier``, looked up again only when the identifier changes.
    private var storeKey: StoreKey {
        if let cachedStoreKey, cachedStoreKey.identifier == identifier { return cachedStoreKey }
        let key = StoreKey.interned(identifier)
        cachedStoreKey = key
        return key
    }
    private var cachedStoreKey: StoreKey?

    /// The reference an ID of this store holds.
    public func referenceObject(for id: ObjectID) -> ReferenceObject { id.referenceObject }

    // MARK: - Requests

    /// Finds the matching nodes: through an index the model declares when one fits a term of the
    /// predicate or the order (see ``explain(_:)``), else every node of the entity (and, unless the
    /// request says otherwise, its sub-entities), filtered by the predicate. Only a fetch walking an
    /// index in order sorts and pages itself; otherwise the context sorts and pages the results.
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)``; a ``PredicateError`` for a predicate that does
    ///   not fit the entity.
    open override func fetch(_ request: FetchRequest) throws -> StoreFetchResult {
        try execute(request).result
    }

    /// The snapshot of an object; nil when the store has no such object.
    open override func snapshot(for id: ObjectID) throws -> ObjectSnapshot? {
        cacheNode(for: id)
    }

    /// Applies a save to the objects, then calls ``save()`` to write them.
    ///
    /// Checks every updated, deleted and locked object's version first, makes permanent IDs with
    /// ``newReferenceObject(for:)``, replaces each updated object's snapshot by one at the next
    /// version and removes deleted ones after ``willRemoveCacheNodes(_:)``, then hands what
    /// changed to ``save(changes:)`` (by default ``save()``). When that throws, the objects are
    /// rolled back to what they were.
    ///
    /// - Throws: ``GraphError/readOnlyStore(_:)`` for a store opened read-only;
    ///   ``GraphError/conflict(_:)`` naming every object whose version changed;
    ///   ``GraphError/uniquenessViolation(entity:attributes:values:objects:)`` when two objects
    ///   would share the values of a uniqueness constraint; the error of ``save(changes:)``.
    open override func save(_ request: SaveChangesRequest) throws -> SaveResult {
        if options.isReadOnly { throw GraphError.readOnlyStore(url?.path ?? identifier) }
        try checkVersions(request)
        try checkReferencesLeft(for: request.insertedObjects.filter(\.objectID.isTemporary))
        try checkVersionsLeft(for: request.updatedObjects)
        try checkUniqueness(request)

        var result = SaveResult()
        let savedNextReference = nextReference
        for snapshot in request.insertedObjects {
            let id = snapshot.objectID
            if id.isTemporary {
                result.permanentIDs[id] = objectID(for: id.entity, referenceObject: newReferenceObject(for: snapshot))
            } else if id.storeIdentifier != identifier || cacheNode(for: id) != nil {
                throw GraphError.store("cannot insert \(id): it belongs to another store or exists already")
            }
        }

        // Apply to the objects, remembering how to undo it if writing fails.
        var inserted: [ObjectSnapshot] = []
        inserted.reserveCapacity(request.insertedObjects.count)
        for snapshot in request.insertedObjects {
            let id = result.permanentIDs[snapshot.objectID] ?? snapshot.objectID
            let values = result.permanentIDs.isEmpty ? snapshot.values : Self.rewrite(snapshot.values, result.permanentIDs)
            inserted.append(ObjectSnapshot(objectID: id, version: 1, values: values))
        }
        insertNodes(inserted)
        var updated: [(old: ObjectSnapshot, new: ObjectSnapshot)] = []
        updated.reserveCapacity(request.updatedObjects.count)
        for snapshot in request.updatedObjects {
            guard let old = cacheNode(for: snapshot.objectID) else { continue }
            let values = result.permanentIDs.isEmpty ? snapshot.values : Self.rewrite(snapshot.values, result.permanentIDs)
            // The stored ID, not the request's: an ID equal to it may name another store key.
            let new = ObjectSnapshot(objectID: old.objectID, version: old.version + 1, values: values)  // below Int64.max: checkVersionsLeft
            nodesByEntity[old.objectID.entityName]?[old.objectID] = new
            updated.append((old, new))
            result.versions[new.objectID] = new.version
        }
        let removed = request.deletedObjects.compactMap { cacheNode(for: $0.objectID) }
        if !removed.isEmpty {
            willRemoveCacheNodes(removed)
            for snapshot in removed { nodesByEntity[snapshot.objectID.entityName]?[snapshot.objectID] = nil }
        }

        // The indexes take the changes in while the save is written when the store lets this
        // thread do it while it waits for its disk (`whileWriting`: the JSON store's journal),
        // or, when the store's writes are slow and it does not, on a worker that starts on them
        // (this thread finishes them after the write). Otherwise this thread takes them in after
        // the write. The jobs change the store's indexes in place (taken out of the store
        // meanwhile); a failed write takes the save out of them again.
        let upkeep = storeIndexes.isStale ? nil : storeIndexes.upkeep(inserted: inserted, updated: updated, removed: removed)
        if let upkeep, !writeRunsUpkeep,
           IndexUpkeepWorker.overlaps(operations: upkeep.operations, lastWrite: lastWriteNanoseconds) {
            IndexUpkeepWorker.shared.offer(upkeep)
        }
        var ranWhileWriting = false
        let whileWriting = upkeep.flatMap { upkeep in
            upkeep.operations >= IndexUpkeep.besideWriteThreshold ? { ranWhileWriting = true; upkeep.finish() } : nil
        }
        let writeStart = DispatchTime.now().uptimeNanoseconds
        do {
            result.sequences = try commit(changes: AtomicStoreChanges(inserted: inserted, updated: updated.map(\.new),
                                                                      deleted: removed, nextReference: nextReference,
                                                                      whileWriting: whileWriting, metadata: request.metadata))
        } catch {
            lastWriteNanoseconds = DispatchTime.now().uptimeNanoseconds &- writeStart
            if whileWriting != nil { writeRunsUpkeep = ranWhileWriting }
            if let upkeep { storeIndexes.restore(upkeep) }  // no other thread works on it once the save returns
            for snapshot in inserted { nodesByEntity[snapshot.objectID.entityName]?[snapshot.objectID] = nil }
            for (old, _) in updated { nodesByEntity[old.objectID.entityName]?[old.objectID] = old }
            insertNodes(removed)
            nextReference = savedNextReference
            throw error
        }
        lastWriteNanoseconds = DispatchTime.now().uptimeNanoseconds &- writeStart
        if whileWriting != nil { writeRunsUpkeep = ranWhileWriting }
        if let upkeep { storeIndexes.take(upkeep) }
        return result
    }

    /// Permanent IDs for objects about to be inserted, made with ``newReferenceObject(for:)``.
    open override func obtainPermanentIDs(for snapshots: [ObjectSnapshot]) throws -> [ObjectID] {
        if options.isReadOnly { throw GraphError.readOnlyStore(url?.path ?? identifier) }
        try checkReferencesLeft(for: snapshots)
        return snapshots.map { objectID(for: $0.objectID.entity, referenceObject: newReferenceObject(for: $0)) }
    }

    /// Optimistic locking: every updated, deleted and locked object must still be at the
    /// version the context read.
    private func checkVersions(_ request: SaveChangesRequest) throws {
        var conflicts: [Conflict] = []
        for snapshot in request.updatedObjects + request.deletedObjects + request.lockedObjects {
            let current = cacheNode(for: snapshot.objectID)?.version
            if current != snapshot.version {
                conflicts.append(Conflict(objectID: snapshot.objectID, expectedVersion: snapshot.version, currentVersion: current))
            }
        }
        if !conflicts.isEmpty { throw GraphError.conflict(conflicts) }
    }

    /// Replaces temporary IDs by permanent ones in relationship values.
    static func rewrite(_ values: [Value], _ map: [ObjectID: ObjectID]) -> [Value] {
        guard !map.isEmpty, values.contains(where: { value in
            switch value {
            case .object(let id): return id.isTemporary
            case .objects(let ids): return ids.contains(where: \.isTemporary)
            default: return false
            }
        }) else { return values }
        return values.map { value in
            switch value {
            case .object(let id) where id.isTemporary: return .object(map[id] ?? id)
            case .objects(let ids): return .objects(ids.map { $0.isTemporary ? (map[$0] ?? $0) : $0 })
            default: return value
            }
        }
    }
}
