import GraphCore

/// One committed state of the store, immutable: every object as an ``ObjectSnapshot``, by
/// concrete entity, and the number of the commit that made it.
///
/// Readers (`get`, `fetch`) answer from the state they took, on any thread, without a lock
/// and without waiting for the writer; a state holds whole commits only, so a reader sees
/// all of a commit or none of it. The writer makes the next state from this one and what a
/// commit changed (``advanced(to:changes:)``): the maps are persistent (`TreeDictionary`),
/// so that costs O(changed · log n) and shares everything else with the state before. The
/// fetch indexes (``SnapshotIndexes``) are persistent B+-trees advanced the same way.
///
/// A checkpoint can take ``objects(ofEntity:)`` of a state to any thread: the state never
/// changes.
///
/// A state over a database with a bounded cache (``isComplete`` false) holds only the objects
/// the cache keeps: an object it does not hold may still exist, and is read from the database
/// (``DatabaseReads``); it has no fetch indexes (fetches run as SQL).
struct ReadState: Sendable {
    /// The number of the last commit in this state (0 before the first).
    private(set) var sequence: Int64
    /// The store's identifier: IDs of other stores name nothing here.
    let storeIdentifier: String
    let model: ObjectModel
    /// Relationships whose references may outlive their target, read as cleared.
    let dangling: DanglingReferences
    /// By concrete entity name (every non-abstract entity has an entry).
    private var entities: [String: EntityObjects]
    /// The model's fetch indexes over these objects, advanced with them (persistent, like
    /// the maps): `fetch` reads them through GraphCore's planner.
    private(set) var indexes: SnapshotIndexes
    /// Changes whenever a commit deletes an object that dangling references may point at:
    /// then objects read differently without a version of their own (see ``WireObjectCache``).
    private(set) var clearingEpoch: Int64
    /// Whether the state holds every object of the store (false: the objects a bounded cache keeps).
    let isComplete: Bool

    /// The state of `snapshots` (every object of a store, or when `isComplete` is false, those
    /// a bounded cache keeps) after commit `sequence`.
    init(sequence: Int64, storeIdentifier: String, model: ObjectModel, snapshots: [ObjectSnapshot], isComplete: Bool = true) {
        self.sequence = sequence
        self.isComplete = isComplete
        self.storeIdentifier = storeIdentifier
        self.model = model
        dangling = DanglingReferences(model: model)
        clearingEpoch = 0
        // The maps and the indexes are built from the snapshots at the same time.
        (entities, indexes) = SideBySide.run({
            var entities: [String: EntityObjects] = [:]
            for entity in model.entities where !entity.isAbstract { entities[entity.name] = EntityObjects() }
            for snapshot in snapshots { entities[snapshot.objectID.entityName, default: EntityObjects()][snapshot.objectID] = snapshot }
            return entities
        }, {
            isComplete ? SnapshotIndexes(model: model, snapshots: snapshots) : SnapshotIndexes()
        })
    }

    /// What a commit changed: each object's new snapshot, or nil for a deleted object.
    typealias Changes = [(id: ObjectID, snapshot: ObjectSnapshot?)]

    /// The state after commit `sequence`, which changed `changes`.
    func advanced(to sequence: Int64, changes: Changes) -> ReadState {
        var next = self
        next.sequence = sequence
        var deleted: [ObjectSnapshot] = []
        let indexed = !indexes.isEmpty
        for (id, snapshot) in changes {
            let old = next.entities[id.entityName]?[id]
            if indexed { next.indexes.apply(old: old, new: snapshot) }
            if let snapshot {
                next.entities[id.entityName, default: EntityObjects()][id] = snapshot
            } else {
                next.entities[id.entityName]?[id] = nil
                if let old { deleted.append(old) }
            }
        }
        if !dangling.isEmpty {
            if isComplete {
                next.clearDanglingReferences(changes: changes, deleted: deleted)
            } else {
                next.clearReferences(to: Set(changes.compactMap { $0.snapshot == nil ? $0.id : nil }))
            }
            let gone = isComplete ? deleted.map(\.objectID) : changes.compactMap { $0.snapshot == nil ? $0.id : nil }
            if !dangling.holders(ofDeleted: gone).isEmpty {
                next.clearingEpoch = clearingEpoch &+ 1
            }
        }
        return next
    }

    /// Puts `new` in the place of `old`, a snapshot of the same object this state holds, in
    /// the maps and the indexes (``clearDanglingReferences(changes:deleted:)``).
    mutating func replaceStored(_ old: ObjectSnapshot, with new: ObjectSnapshot) {
        if !indexes.isEmpty { indexes.apply(old: old, new: new) }
        entities[new.objectID.entityName, default: EntityObjects()][new.objectID] = new
    }

    /// Keeps `snapshot` (a bounded cache's state: no indexes to keep up).
    mutating func store(_ snapshot: ObjectSnapshot) {
        entities[snapshot.objectID.entityName, default: EntityObjects()][snapshot.objectID] = snapshot
    }

    /// Lets object `id` go (a bounded cache's state).
    mutating func forget(_ id: ObjectID) {
        entities[id.entityName]?[id] = nil
    }

    // MARK: - Reading

    /// How many objects the state holds.
    var objectCount: Int { entities.values.reduce(0) { $0 + $1.count } }

    /// The objects of one concrete entity, in no particular order.
    func objects(ofEntity name: String) -> EntityObjects.Values {
        (entities[name] ?? EntityObjects()).values
    }

    /// Every object, by concrete entity name, as the store holds them (references not
    /// cleared): for a checkpoint writing the store's snapshot file from this state on a
    /// thread of its own (the values are immutable and `Sendable`).
    var objectsByEntity: [String: EntityObjects.Values] {
        entities.mapValues(\.values)
    }

    /// The stored snapshots of one concrete entity by reference, as the store holds them: how
    /// the fetch indexes' entries find their objects (``SnapshotFetch/ReferenceLookup``).
    func lookup(ofEntity name: String) -> (ReferenceObject) -> ObjectSnapshot? {
        let objects = entities[name] ?? EntityObjects()
        return { objects[$0] }
    }

    /// The stored snapshot of an object, as the store holds it (references not cleared).
    func storedSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == storeIdentifier else { return nil }
        return entities[id.entityName]?[id]
    }

    /// The committed state of an object, or nil when there is none. References to deleted
    /// objects that nothing cleared read as cleared (``DanglingReferences``). (In a state of a
    /// bounded cache the database cleared them: an object it does not hold may exist.)
    func snapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard let snapshot = storedSnapshot(of: id) else { return nil }
        return dangling.isEmpty || !isComplete ? snapshot : dangling.cleared(snapshot) { self.exists($0) }
    }

    /// Whether the state holds the object.
    func exists(_ id: ObjectID) -> Bool {
        storedSnapshot(of: id) != nil
    }

    /// The object `id` names, as the store holds it: an ID may name the object's entity or
    /// one of its ancestors (`graph://S/Animal/7` for `graph://S/Dog/7`). Nil when there is
    /// no such object (an ID naming a sibling entity names none).
    func canonicalSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard id.storeIdentifier == storeIdentifier else { return nil }
        if let found = entities[id.entityName]?[id] { return found }
        // IDs of one hierarchy are equal: the same ID finds the object under its own entity.
        for entity in model.entities where entity.name != id.entityName && !entity.isAbstract && entity.isKind(of: id.entity) {
            if let found = entities[entity.name]?[id] { return found }
        }
        return nil
    }

    /// The ID of the object `id` names (see ``canonicalSnapshot(of:)``).
    func canonical(_ id: ObjectID) -> ObjectID? {
        canonicalSnapshot(of: id)?.objectID
    }
}
