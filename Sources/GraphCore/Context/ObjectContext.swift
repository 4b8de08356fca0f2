import Foundation

/// A scratch pad of objects: it fetches them from its store (or its parent context), tracks
/// every change, keeps inverse relationships consistent, applies delete rules, and saves
/// all changes at once.
///
/// ```swift
/// let context = container.viewContext
/// let album = try context.insert("Album")
/// try album.set("title", "Kind of Blue")
/// let song = try context.insert("Song")
/// try song.set("title", "So What")
/// try song.setObject(album, forKey: "album")   // album.songs == [song]
/// try context.save()
/// ```
///
/// A context is not `Sendable`: it and its objects stay in the isolation domain that made
/// them, and the compiler checks it. Only ``ObjectID``s travel between contexts. To run a
/// context in a domain of its own, use a ``BackgroundContext`` and its `perform`.
public final class ObjectContext {
    /// The coordinator of the stores this context (or its root parent) reads and writes.
    public let coordinator: StoreCoordinator
    /// The parent context a child context saves into; nil for a context on the coordinator.
    public let parent: ObjectContext?
    /// What a save does when objects were changed in the store since they were fetched.
    public var mergePolicy: MergePolicy = .error
    /// A name for logs and debugging.
    public var name: String?

    /// One object per ID: the objects this context knows.
    var registered = ObjectIDTable<ManagedObject>()
    /// Objects with changes, in the order they first changed (each at most once; see `.listed`).
    var changeList: [ManagedObject] = []
    /// The committed values of objects that changed since fetched (keyed by object identity).
    var committed: [ObjectIdentifier: [Value]] = [:]
    /// Errors raised where they could not be thrown (typed property setters); the next save reports them.
    var deferredErrors: [GraphError] = []
    var undoStack: UndoStack?
    var saveObservers: [(id: Int, handler: (ContextDidSave) -> Void)] = []
    /// Whether the context merges changes other processes made to its stores (as its stores
    /// report them) before it next fetches, loads an object or saves; true by default. Only
    /// a context on the coordinator (not a child context) merges them. See
    /// ``mergeRemoteChanges()``.
    public var automaticallyMergesRemoteChanges = true
    /// Where a context on the coordinator reads an object's committed values before it asks the
    /// store: a process that already holds every committed object in memory (a server over a
    /// database, whose store would answer with a query per object) sets it. Nil (the default),
    /// or a nil answer, asks the store. The store still checks every version when it saves.
    public var committedSnapshots: ((ObjectID) -> ObjectSnapshot?)?
    /// The last entry of the coordinator's remote-change log this context merged.
    var remoteChangeCursor = 0
    var nextObserverID = 0
    private var classCache: [String: ManagedObject.Type] = [:]
    private var classCacheGeneration = 0

    /// A context that reads and saves through `coordinator`.
    public init(coordinator: StoreCoordinator) {
        self.coordinator = coordinator
        self.parent = nil
        self.remoteChangeCursor = coordinator.remoteChanges.newest.load(ordering: .acquiring)
    }

    /// A child context: it reads through `parent` (seeing its unsaved changes) and its save
    /// pushes the changes into `parent`, which saves them to the store when it saves.
    public init(parent: ObjectContext) {
        self.coordinator = parent.coordinator
        self.parent = parent
    }

    deinit {
        // Objects keep an unowned pointer to their context: clear it in every object still
        // registered (the only ones that hold it), so none is left pointing at freed memory.
        registered.forEach { $0._context = nil }
    }

    /// A new child context of this one.
    public func newChildContext() -> ObjectContext { ObjectContext(parent: self) }

    /// The model of the coordinator.
    public var model: ObjectModel { coordinator.model }

    /// Runs `body` with this context. A context is confined to its isolation domain, so this
    /// runs at once on the caller; it exists so that code reads the same as with a
    /// ``BackgroundContext``.
    public func perform<T>(_ body: (ObjectContext) throws -> T) rethrows -> T {
        try body(self)
    }

    // MARK: - Changes

    /// Whether any object was inserted, changed or deleted since the last save (an object
    /// inserted and then deleted is no change: it vanishes).
    public var hasChanges: Bool {
        changeList.contains { $0.hasChanges && !($0.isInserted && $0.isDeleted) } || !deferredErrors.isEmpty
    }

    /// Objects inserted since the last save, in insertion order.
    public var insertedObjects: [ManagedObject] { changeList.filter { $0.isInserted && !$0.isDeleted } }
    /// Objects changed since the last save (not inserted, not deleted).
    public var updatedObjects: [ManagedObject] {
        changeList.filter { $0.flags.contains(.updated) && !$0.isInserted && !$0.isDeleted }
    }
    /// Objects deleted since the last save (only those that were saved before).
    public var deletedObjects: [ManagedObject] { changeList.filter { $0.isDeleted && !$0.isInserted } }
    /// Every object the context knows, faults included.
    public var registeredObjects: [ManagedObject] { registered.values }

    /// Lists an object as changed once, remembering its committed values for rollback.
    func willChange(_ object: ManagedObject) {
        if !object.flags.contains(.inserted), !object.flags.contains(.updated) {
            committed[ObjectIdentifier(object)] = object.storage
            object.flags.insert(.updated)
        }
        list(object)
    }

    func list(_ object: ManagedObject) {
        guard !object.flags.contains(.listed) else { return }
        object.flags.insert(.listed)
        changeList.append(object)
    }

    /// The values as last fetched or saved.
    func committedStorage(of object: ManagedObject) -> [Value] {
        committed[ObjectIdentifier(object)] ?? object.storage
    }

    // MARK: - Objects by ID

    /// The object for an ID: the registered one, or a new fault (no store access yet).
    public func object(with id: ObjectID) -> ManagedObject {
        if let object = registered[id] { return object }
        let object = makeObject(id)
        registered[id] = object
        return object
    }

    /// The object for an ID with its values loaded.
    ///
    /// - Throws: ``GraphError/objectNotFound(_:)`` when the store has no such object.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        mergeRemoteChangesIfNeeded()
        let object = self.object(with: id)
        if object.isFault {
            do {
                try fulfillFault(object)
            } catch {
                if registered[id] === object, !object.hasChanges {
                    registered[id] = nil
                    object._context = nil  // an object leaves its context only with its pointer cleared
                }
                throw error
            }
        }
        return object
    }

    /// Registers a fetched snapshot: the registered object keeps its values (and changes);
    /// a fault or a new object takes the snapshot's.
    func register(_ snapshot: ObjectSnapshot) -> ManagedObject {
        if let object = registered[snapshot.objectID] {
            if object.isFault { fill(object, with: snapshot) }
            return object
        }
        let object = makeObject(snapshot.objectID)
        fill(object, with: snapshot)
        registered[snapshot.objectID] = object
        return object
    }

    func fill(_ object: ManagedObject, with snapshot: ObjectSnapshot) {
        object.storage = snapshot.values
        object.version = snapshot.version
        object.flags.remove(.fault)
    }

    /// Loads a fault's values from the parent context or the store.
    func fulfillFault(_ object: ManagedObject) throws {
        guard object.isFault else { return }
        guard let snapshot = try snapshotFromSource(object.objectID) else {
            throw GraphError.objectNotFound(object.objectID)
        }
        fill(object, with: snapshot)
    }

    /// The snapshot this context's source holds for an ID: the parent's current values, or the store's.
    func snapshotFromSource(_ id: ObjectID) throws -> ObjectSnapshot? {
        if let parent { return try parent.snapshotForChild(id) }
        if id.isTemporary { return nil }
        if let committedSnapshots, let snapshot = committedSnapshots(id) { return snapshot }
        return try coordinator.snapshot(for: id)
    }

    /// An object as this context last saved or loaded it: its values and version, read from the
    /// object (no store call). Nil when the context does not hold the object loaded and without
    /// changes (a fault, an object it never loaded, or one changed since). Right after a save,
    /// every object the save wrote and did not delete is such an object.
    public func savedSnapshot(of id: ObjectID) -> ObjectSnapshot? {
        guard let object = registered[id], !object.isFault, !object.hasChanges else { return nil }
        return ObjectSnapshot(objectID: id, version: object.version, values: object.storage)
    }

    /// What a child context sees of an object: this context's current values if it has them.
    func snapshotForChild(_ id: ObjectID) throws -> ObjectSnapshot? {
        if let object = registered[id] {
            if object.isDeleted { return nil }
            if !object.isFault { return ObjectSnapshot(objectID: id, version: object.version, values: object.storage) }
        }
        return try snapshotFromSource(id)
    }

    /// A new instance of the class registered for the entity, as a fault.
    func makeObject(_ id: ObjectID) -> ManagedObject {
        let name = id.entity.name
        let generation = coordinator.classGeneration.load(ordering: .acquiring)
        if generation != classCacheGeneration {  // a class was registered since: look again
            classCache.removeAll()
            classCacheGeneration = generation
        }
        let type: ManagedObject.Type
        if let cached = classCache[name] {
            type = cached
        } else {
            type = coordinator.registeredClass(forEntity: name) ?? ManagedObject.self
            classCache[name] = type
        }
        return type.init(objectID: id, context: self)
    }

    // MARK: - Insert

    /// Inserts a new object of the entity, with its default values.
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)``, ``GraphError/abstractEntity(_:)``.
    @discardableResult
    public func insert(_ entityName: String) throws(GraphError) -> ManagedObject {
        let entity = try model.requireEntity(entityName)
        guard !entity.isAbstract else { throw .abstractEntity(entityName) }
        let object = makeObject(.temporary(for: entity))
        object.storage = entity.initialValues
        object.flags = [.inserted]
        list(object)
        registered[object.objectID] = object
        undoStack?.record(.insert(object))
        return object
    }

    /// Inserts a new object and sets its attributes and relationships from `values`
    /// (relationship values as object IDs of objects in this context).
    ///
    /// ```swift
    /// let song = try context.insert("Song", values: ["title": "So What", "plays": 12])
    /// ```
    ///
    /// - Throws: the errors of ``insert(_:)-(String)`` and of ``ManagedObject/setValue(_:forKey:)``.
    @discardableResult
    public func insert(_ entityName: String, values: [String: Value]) throws -> ManagedObject {
        let object = try insert(entityName)
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            try object.setValue(value, forKey: key)
        }
        return object
    }

    /// Inserts a new object of a registered class.
    ///
    /// ```swift
    /// let song = try context.insert(Song.self)
    /// song.title = "Blue"
    /// ```
    ///
    /// - Throws: ``GraphError/unknownEntity(_:)`` when the class is not registered with
    ///   ``StoreCoordinator/register(_:forEntity:)``; ``GraphError/abstractEntity(_:)`` when
    ///   its entity is abstract.
    public func insert<T: ManagedObject>(_ type: T.Type) throws -> T {
        guard let entityName = coordinator.entityName(forClass: type) else {
            throw GraphError.unknownEntity("\(T.self) (class not registered with the coordinator)")
        }
        let object = try insert(entityName)
        guard let typed = object as? T else {
            throw GraphError.unknownEntity("\(T.self) (entity '\(entityName)' makes \(Swift.type(of: object)))")
        }
        return typed
    }

    // MARK: - Observers

    /// Calls `handler` after each successful save of this context.
    ///
    /// - Returns: a token for ``removeDidSaveObserver(_:)``.
    @discardableResult
    public func addDidSaveObserver(_ handler: @escaping (ContextDidSave) -> Void) -> Int {
        nextObserverID += 1
        saveObservers.append((nextObserverID, handler))
        return nextObserverID
    }

    /// Stops calling the observer that ``addDidSaveObserver(_:)`` returned `token` for.
    public func removeDidSaveObserver(_ token: Int) {
        saveObservers.removeAll { $0.id == token }
    }

    /// Records an error that a non-throwing accessor could not report; `save()` throws it.
    func deferError(_ error: Error) {
        deferredErrors.append((error as? GraphError) ?? .store(String(describing: error)))
    }
}
